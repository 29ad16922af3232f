/** A server whose phone accounts prove their number, texting through a local Twilio-shaped gateway. */
import type { FlagValue } from '../../../core/config.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { startSmsGateway, type SmsGateway } from '../sms/gateway-server.js';

export const SMS_FLAGS: Record<string, FlagValue> = {
  'sms-account-sid': 'AC0123456789',
  'sms-api-key': 'SK-key',
  'sms-api-secret': 'sms-secret',
  'sms-sender': '+15550001111',
  'outbound-allow-cidrs': '127.0.0.1/32',
  'enable-mobile-basic-authentication': true,
  // A text the gateway refuses is retried by the outbox this soon.
  'sms-retry-delay-ms': 100,
};

export interface PhoneServer {
  server: TestServer;
  gateway: SmsGateway;
  /** The six-digit code of the next text to `to`. */
  nextCode(to: string): Promise<string>;
  close(): Promise<void>;
}

export async function startPhoneServer(flags: Record<string, FlagValue | undefined> = {}): Promise<PhoneServer> {
  const gateway = await startSmsGateway();
  const server = await startTestServer({ flags: { ...SMS_FLAGS, 'sms-gateway-url': gateway.url, ...flags } });
  return {
    server,
    gateway,
    nextCode: async (to) => /\b(\d{6})\b/.exec((await gateway.next(to)).body)![1]!,
    async close() {
      await server.close();
      await gateway.close();
    },
  };
}

/** Another six-digit code than `code`. */
export const otherThan = (code: string): string => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

/** The Prometheus text of the server's metrics listener. */
export async function metricsText(server: TestServer): Promise<string> {
  return (await fetch(`${server.metricsUrl}/metrics`)).text();
}
