/**
 * The peers the server sends messages to, on 127.0.0.1, each recording what it accepted and each
 * able to answer slowly (`delayMs` before it answers): an SMTP server (smtp-server), a
 * Twilio-shaped SMS gateway and a webhook receiver (node:http). "Down" is the peer behind a
 * FaultProxy set to `refuse`.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface Peer<T> {
  port: number;
  /** What the peer accepted, in order. */
  readonly accepted: T[];
  /** Milliseconds the peer waits before each answer. */
  delayMs: number;
  close(): Promise<void>;
}

export interface AcceptedMail {
  to: string[];
  messageId: string;
  /** When the peer accepted it (ms since the epoch). */
  at: number;
}

export interface AcceptedText {
  to: string;
  body: string;
}

export interface AcceptedDelivery {
  /** When the receiver answered it (ms since the epoch). */
  at: number;
  deliveryId: string;
  event: string;
  email: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startSmtpPeer(): Promise<Peer<AcceptedMail>> {
  const peer: Peer<AcceptedMail> = { port: 0, accepted: [], delayMs: 0, close: async () => {} };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      stream.on('end', () => {
        void sleep(peer.delayMs).then(() => {
          const messageId = /^message-id:\s*(.+)$/im.exec(raw)?.[1]?.trim() ?? '';
          peer.accepted.push({ to: session.envelope.rcptTo.map((r) => r.address), messageId, at: Date.now() });
          callback();
        });
      });
    },
  });
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  peer.port = (server.server.address() as AddressInfo).port;
  peer.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return peer;
}

const read = async (req: IncomingMessage): Promise<string> => {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
};

async function httpPeer<T>(accept: (req: IncomingMessage, body: string) => T): Promise<Peer<T>> {
  const peer: Peer<T> = { port: 0, accepted: [], delayMs: 0, close: async () => {} };
  const server = createServer((req, res) => {
    void read(req).then(async (body) => {
      await sleep(peer.delayMs);
      peer.accepted.push(accept(req, body));
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"sid":"SM0","status":"queued"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  peer.port = (server.address() as AddressInfo).port;
  peer.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return peer;
}

export const startSmsPeer = () =>
  httpPeer<AcceptedText>((_req, body) => {
    const form = new URLSearchParams(body);
    return { to: form.get('To') ?? '', body: form.get('Body') ?? '' };
  });

export const startWebhookPeer = () =>
  httpPeer<AcceptedDelivery>((req, body) => {
    let json: { event_name?: string; user?: { email?: string } | null } = {};
    try {
      json = JSON.parse(body) as typeof json;
    } catch {
      // A body that is not JSON is still a delivery; its fields stay empty.
    }
    return {
      at: Date.now(),
      deliveryId: String(req.headers['x-service-delivery-id'] ?? ''),
      event: json.event_name ?? '',
      email: json.user?.email ?? '',
    };
  });
