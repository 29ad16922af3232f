/**
 * A real SMTP server for tests (smtp-server on 127.0.0.1, a free port): it parses every message
 * it accepts with mailparser, can refuse the first attempts of delivery, and lets a test wait for
 * the next message to an address.
 */
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface SinkMail {
  to: string;
  /** The From header's address and display name. */
  from: { address: string; name: string };
  subject: string;
  html: string;
  text: string;
  /** The first link in the text part that points at the given base, if any. */
  link(base: string): string | undefined;
}

/** What one SMTP session that delivered a message looked like. */
export interface SinkSession {
  /** TLS from the first byte or after STARTTLS. */
  secure: boolean;
  /** The name the client announced in EHLO/HELO. */
  clientName: string;
  /** The user it authenticated as, if it did. */
  user: string | undefined;
}

export interface SinkOptions {
  port?: number;
  /** A certificate: STARTTLS is offered with it (or TLS from the start with `secure`). */
  tls?: { key: string; cert: string };
  /** TLS from the first byte (SMTPS, RFC 8314 §3.3). */
  secure?: boolean;
  /** Require authentication with these credentials. */
  auth?: { user: string; pass: string };
}

export interface SmtpSink {
  port: number;
  /** The session of each accepted message, in order. */
  readonly sessions: SinkSession[];
  /** Every accepted message, in order. */
  readonly messages: SinkMail[];
  /** Delivery attempts the server refused. */
  readonly refused: number;
  /** Refuse the next `n` messages with a temporary error (451). */
  refuseNext(n: number): void;
  /** The next message to `to` not yet taken by an earlier call (waits up to `ms`). */
  next(to: string, ms?: number): Promise<SinkMail>;
  close(): Promise<void>;
}

function toSinkMail(parsed: ParsedMail): SinkMail {
  const to = Array.isArray(parsed.to) ? parsed.to[0] : parsed.to;
  const text = parsed.text ?? '';
  const from = parsed.from?.value[0];
  return {
    to: to?.value[0]?.address ?? '',
    from: { address: from?.address ?? '', name: from?.name ?? '' },
    subject: parsed.subject ?? '',
    html: typeof parsed.html === 'string' ? parsed.html : '',
    text,
    link(base) {
      const found = text.match(/https?:\/\/\S+/g) ?? [];
      return found.find((l) => l.startsWith(base));
    },
  };
}

export async function startSmtpSink(options: SinkOptions = {}): Promise<SmtpSink> {
  const messages: SinkMail[] = [];
  const sessions: SinkSession[] = [];
  const taken = new Set<SinkMail>();
  const waiters: (() => void)[] = [];
  let refuse = 0;
  let refused = 0;
  const { auth } = options;
  const server = new SMTPServer({
    logger: false,
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : { disabledCommands: ['STARTTLS'] }),
    ...(options.secure ? { secure: true } : {}),
    ...(auth
      ? {
          authMethods: ['PLAIN', 'LOGIN'],
          onAuth(given, _session, callback) {
            if (given.username === auth.user && given.password === auth.pass) callback(null, { user: given.username });
            else callback(new Error('invalid username or password'));
          },
        }
      : { authOptional: true }),
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (refuse > 0) {
          refuse--;
          refused++;
          const err = Object.assign(new Error('try again later'), { responseCode: 451 });
          callback(err);
          return;
        }
        simpleParser(Buffer.concat(chunks)).then(
          (parsed) => {
            messages.push(toSinkMail(parsed));
            sessions.push({
              secure: session.secure,
              clientName: session.hostNameAppearsAs,
              user: typeof session.user === 'string' ? session.user : undefined,
            });
            for (const w of waiters.splice(0)) w();
            callback();
          },
          (err: Error) => callback(err),
        );
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    messages,
    sessions,
    get refused() {
      return refused;
    },
    refuseNext(n) {
      refuse = n;
    },
    async next(to, ms = 10_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const found = messages.find((m) => m.to === to && !taken.has(m));
        if (found) {
          taken.add(found);
          return found;
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no mail to ${to} within ${ms} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
