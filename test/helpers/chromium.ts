/**
 * Debian's Chromium for the browser tests, through playwright-core: headless, and kept off the
 * network beyond the test's own local servers (no QUIC, no background, component or sync traffic).
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** A tap `skip` value: false when the browser is installed, else the reason. */
export const chromiumMissing: false | string = existsSync(CHROMIUM) ? false : 'chromium is not installed';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
