/**
 * A Twilio-shaped Messages API on 127.0.0.1 for tests: it records each posted message (path,
 * Basic credentials, form fields) and answers like the real API, or with a status the test sets;
 * it can answer late (a slow gateway) and listen on a port chosen before (a gateway that was down
 * comes up). Every request, refused or taken, is also noted with its number and when it arrived.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SentText {
  path: string;
  user: string;
  password: string;
  to: string;
  from: string;
  body: string;
}

/** A request as it arrived, whatever the answer: the `To` field and the time (Unix ms). */
export interface Arrival {
  to: string;
  at: number;
}

export interface SmsGatewayOptions {
  /** The port to listen on (default: any free one). */
  port?: number;
  /** How long each answer takes; a text counts as received once its answer is written. */
  delayMs?: number;
}

export interface SmsGateway {
  url: string;
  /** Requests that arrived, answered or not yet. */
  readonly requests: number;
  /** Every request with its body read, in the order they arrived, refused ones included. */
  arrivals: Arrival[];
  texts: SentText[];
  /** Answers the next `count` requests with `status` instead of 201. */
  failNext(count: number, status: number): void;
  /** Resolves with the next text to `to` (one already received counts). */
  next(to: string): Promise<SentText>;
  close(): Promise<void>;
}

const read = async (req: IncomingMessage): Promise<string> => {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
};

export async function startSmsGateway(options: SmsGatewayOptions = {}): Promise<SmsGateway> {
  let requests = 0;
  const texts: SentText[] = [];
  const arrivals: Arrival[] = [];
  const waiting: { to: string; resolve(t: SentText): void }[] = [];
  const taken = new Set<SentText>();
  let failures = 0;
  let failStatus = 500;
  const server = createServer(async (req, res) => {
    requests++;
    const form = new URLSearchParams(await read(req));
    arrivals.push({ to: form.get('To') ?? '', at: Date.now() });
    if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
    if (failures > 0) {
      failures--;
      res.writeHead(failStatus, { 'content-type': 'application/json' }).end('{"code":20500,"message":"error"}');
      return;
    }
    const [user = '', password = ''] = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64')
      .toString()
      .split(':');
    const text: SentText = {
      path: req.url ?? '',
      user,
      password,
      to: form.get('To') ?? '',
      from: form.get('From') ?? '',
      body: form.get('Body') ?? '',
    };
    texts.push(text);
    const i = waiting.findIndex((w) => w.to === text.to);
    if (i >= 0) {
      taken.add(text);
      waiting.splice(i, 1)[0]!.resolve(text);
    }
    res
      .writeHead(201, { 'content-type': 'application/json' })
      .end(JSON.stringify({ sid: `SM${texts.length}`, status: 'queued' }));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    arrivals,
    texts,
    failNext(count, status) {
      failures = count;
      failStatus = status;
    },
    next(to) {
      const ready = texts.find((t) => t.to === to && !taken.has(t));
      if (ready) {
        taken.add(ready);
        return Promise.resolve(ready);
      }
      return new Promise((resolve) => waiting.push({ to, resolve }));
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
