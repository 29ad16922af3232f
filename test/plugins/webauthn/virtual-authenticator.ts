/**
 * Chromium (playwright-core, Debian's build) with a CDP virtual authenticator (WebAuthn domain):
 * a CTAP2 platform authenticator with resident keys and user verification that answers every
 * ceremony at once. `create` / `get` run the browser's own WebAuthn on a page of the service's
 * origin and give back the JSON the server expects, for tests that submit it over any transport.
 */
import { type Browser, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { launchChromium } from '../../helpers/chromium.js';

export interface VirtualAuthenticator {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  authenticatorId: string;
  /** navigator.credentials.create with the server's options JSON; the credential's JSON text. */
  create(optionsJson: string): Promise<string>;
  /** navigator.credentials.get with the server's options JSON; the assertion's JSON text. */
  get(optionsJson: string): Promise<string>;
  credentials(): Promise<{ credentialId: string; signCount: number; isResidentCredential: boolean }[]>;
  close(): Promise<void>;
}

/** Opens `url` (a page of the relying party's origin) in a browser with a virtual authenticator. */
export async function withVirtualAuthenticator(url: string): Promise<VirtualAuthenticator> {
  const browser = await launchChromium();
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url);
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    browser,
    context,
    page,
    cdp,
    authenticatorId,
    create: (optionsJson) =>
      page.evaluate(async (text) => {
        const publicKey = PublicKeyCredential.parseCreationOptionsFromJSON(JSON.parse(text));
        const credential = (await navigator.credentials.create({ publicKey })) as PublicKeyCredential;
        return JSON.stringify(credential.toJSON());
      }, optionsJson),
    get: (optionsJson) =>
      page.evaluate(async (text) => {
        const publicKey = PublicKeyCredential.parseRequestOptionsFromJSON(JSON.parse(text));
        const credential = (await navigator.credentials.get({ publicKey })) as PublicKeyCredential;
        return JSON.stringify(credential.toJSON());
      }, optionsJson),
    async credentials() {
      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      return credentials;
    },
    close: () => browser.close(),
  };
}

/** The credential JSON with its client data changed (origin, challenge): what a phishing page or a stale ceremony sends. */
export function withClientData(credentialJson: string, change: Record<string, unknown>): string {
  const cred = JSON.parse(credentialJson) as { response: { clientDataJSON: string } };
  const data = JSON.parse(Buffer.from(cred.response.clientDataJSON, 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;
  cred.response.clientDataJSON = Buffer.from(JSON.stringify({ ...data, ...change })).toString('base64url');
  return JSON.stringify(cred);
}

/** The assertion JSON with one bit of its signature flipped: a forgery. */
export function withForgedSignature(credentialJson: string): string {
  const cred = JSON.parse(credentialJson) as { response: { signature: string } };
  const sig = Buffer.from(cred.response.signature, 'base64url');
  sig[sig.length - 1] ^= 0x01;
  cred.response.signature = sig.toString('base64url');
  return JSON.stringify(cred);
}
