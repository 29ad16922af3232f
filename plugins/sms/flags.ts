/** The SMS gateway flags and the gateway's base URL. */
import type { Config, FlagDeclaration } from '../../core/config.js';

export const TWILIO_API_BASE = 'https://api.twilio.com';

export const smsFlags: FlagDeclaration[] = [
  { name: 'sms-account-sid', type: 'string', description: 'SMS gateway account sid.' },
  { name: 'sms-api-key', type: 'string', secret: true, description: 'SMS gateway API key (the user of HTTP Basic).' },
  {
    name: 'sms-api-secret',
    type: 'string',
    secret: true,
    description: 'SMS gateway API secret (the password of HTTP Basic).',
  },
  { name: 'sms-sender', type: 'string', description: 'SMS sender number or name.' },
  {
    name: 'sms-gateway-url',
    type: 'string',
    default: TWILIO_API_BASE,
    description:
      'Base URL of the Twilio-compatible gateway API; messages are posted to {base}/2010-04-01/Accounts/{sid}/Messages.json through the guarded outbound client (a gateway on a private network needs --outbound-allow-cidrs).',
  },
  {
    name: 'sms-max-attempts',
    type: 'number',
    default: 6,
    description: 'Delivery attempts of one text before it is marked failed.',
  },
  {
    name: 'sms-retry-delay-ms',
    type: 'number',
    default: 2000,
    description: 'Delay before the first retry of a text; each further retry waits twice as long.',
  },
  {
    name: 'sms-limit-per-number',
    type: 'number',
    default: 5,
    description: 'Code-texting requests (verification, SMS OTP, password reset) per phone number per 15 minutes.',
  },
  {
    name: 'sms-limit-per-ip',
    type: 'number',
    default: 20,
    description: 'Code-texting requests per client IP per 15 minutes.',
  },
];

export interface GatewaySettings {
  base: URL;
  accountSid: string;
  apiKey: string;
  apiSecret: string;
  sender: string;
}

const REQUIRED = ['sms-account-sid', 'sms-api-key', 'sms-api-secret', 'sms-sender'] as const;

/** The gateway settings when every SMS flag is set, null when none is. */
export function gatewaySettings(config: Config): GatewaySettings | null {
  const values = REQUIRED.map((name) => config.string(name, ''));
  if (values.every((v) => v === '')) return null;
  const [accountSid, apiKey, apiSecret, sender] = values as [string, string, string, string];
  return { base: new URL(config.string('sms-gateway-url', TWILIO_API_BASE)), accountSid, apiKey, apiSecret, sender };
}

/** Startup refusals: a partial gateway configuration, or a gateway URL that is not absolute http(s). */
export function smsConfigProblem(config: Config): string | undefined {
  const set = REQUIRED.filter((name) => config.string(name, '') !== '');
  if (set.length > 0 && set.length < REQUIRED.length) {
    const missing = REQUIRED.filter((name) => !set.includes(name)).map((n) => `--${n}`);
    return `The SMS gateway needs ${missing.join(', ')} as well.`;
  }
  const base = config.string('sms-gateway-url', TWILIO_API_BASE);
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return '--sms-gateway-url must be an absolute http(s) URL.';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return '--sms-gateway-url must be an absolute http(s) URL.';
  for (const name of ['sms-max-attempts', 'sms-retry-delay-ms', 'sms-limit-per-number', 'sms-limit-per-ip']) {
    const n = config.number(name);
    if (n !== undefined && (!Number.isInteger(n) || n < 1)) return `--${name} must be a whole number of 1 or more`;
  }
  if (!/^[A-Za-z0-9]{1,64}$/.test(config.string('sms-account-sid', 'x') || 'x')) {
    return '--sms-account-sid must be letters and digits only.';
  }
  return undefined;
}
