/** The email plugin's flags: the `--smtp-*` settings and the outbox's tuning. */
import type { Config, FlagDeclaration } from '../../core/config.js';

export const emailFlags: FlagDeclaration[] = [
  { name: 'smtp-host', type: 'string', description: 'SMTP host (mail is sent only when set).' },
  {
    name: 'smtp-port',
    type: 'number',
    default: 587,
    description: 'SMTP port; 465 is TLS from the start, others upgrade with STARTTLS when offered.',
  },
  { name: 'smtp-username', type: 'string', description: 'SMTP user (authentication when set).' },
  { name: 'smtp-password', type: 'string', secret: true, description: 'SMTP password.' },
  { name: 'smtp-sender-email', type: 'string', description: 'Sender address (default: no-reply@ the --url host).' },
  { name: 'smtp-sender-name', type: 'string', description: 'Sender name (default: --organization-name).' },
  { name: 'smtp-local-name', type: 'string', description: 'Local name announced in HELO/EHLO.' },
  {
    name: 'smtp-skip-tls-verification',
    type: 'boolean',
    default: false,
    description: "Skip verification of the SMTP server's TLS certificate.",
  },
  {
    name: 'email-max-attempts',
    type: 'number',
    default: 8,
    description: 'Delivery attempts of one mail before it is marked failed.',
  },
  {
    name: 'email-retry-delay-ms',
    type: 'number',
    default: 5000,
    description: 'Delay before the first retry of a mail; each further retry waits twice as long.',
  },
  {
    name: 'email-limit-per-address',
    type: 'number',
    default: 5,
    description:
      'Mail-sending requests (forgot_password, resend_verify_email, magic links) per address per 15 minutes.',
  },
  {
    name: 'email-limit-per-ip',
    type: 'number',
    default: 30,
    description: 'Mail-sending requests per client IP per 15 minutes.',
  },
];

/** Startup rules (issue: mail-dependent features need SMTP). */
export function emailConfigProblem(config: Config): string | undefined {
  const port = config.number('smtp-port', 587);
  if (!Number.isInteger(port) || port < 1 || port > 65535) return '--smtp-port must be a port number (1-65535)';
  for (const name of ['email-max-attempts', 'email-retry-delay-ms', 'email-limit-per-address', 'email-limit-per-ip']) {
    const n = config.number(name);
    if (n !== undefined && (!Number.isInteger(n) || n < 1)) return `--${name} must be a whole number of 1 or more`;
  }
  if (config.has('smtp-host')) return undefined;
  for (const feature of ['enable-email-verification', 'enable-magic-link-login']) {
    if (config.bool(feature)) return `--${feature} needs outgoing mail: set --smtp-host (and the other --smtp-* flags)`;
  }
  return undefined;
}
