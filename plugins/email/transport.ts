/**
 * The SMTP transport (nodemailer) built from the `--smtp-*` flags: port 465 is TLS from the
 * start (RFC 8314 §3.3), any other port upgrades with STARTTLS when the server offers it.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../../core/config.js';

export interface OutgoingMail {
  to: string;
  subject: string;
  html: string;
  text: string;
}

export interface MailTransport {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/** How long one attempt may take: below the outbox lease (outbox.ts), so a held row is never sent twice. */
export const SMTP_TIMEOUT_MS = 20_000;

export function createMailTransport(config: Config): MailTransport {
  const port = config.number('smtp-port', 587);
  const username = config.string('smtp-username');
  const localName = config.string('smtp-local-name');
  const transporter: Transporter = nodemailer.createTransport({
    host: config.string('smtp-host'),
    port,
    secure: port === 465,
    ...(username ? { auth: { user: username, pass: config.string('smtp-password', '') } } : {}),
    ...(localName ? { name: localName } : {}),
    tls: { rejectUnauthorized: !config.bool('smtp-skip-tls-verification') },
    connectionTimeout: SMTP_TIMEOUT_MS / 2,
    greetingTimeout: SMTP_TIMEOUT_MS / 2,
    socketTimeout: SMTP_TIMEOUT_MS,
  });
  const url = config.string('url', 'http://localhost');
  let host = 'localhost';
  try {
    host = new URL(url).hostname;
  } catch {
    // --url is checked at startup by the server plugin.
  }
  const from = {
    name: config.string('smtp-sender-name') ?? config.string('organization-name', 'Latchkey'),
    address: config.string('smtp-sender-email') ?? `no-reply@${host}`,
  };
  return {
    async send(mail) {
      await transporter.sendMail({ from, to: mail.to, subject: mail.subject, html: mail.html, text: mail.text });
    },
    close: () => transporter.close(),
  };
}
