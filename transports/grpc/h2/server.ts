/**
 * A cleartext HTTP/2 server (h2c with prior knowledge, RFC 9113 §3.3) on node:net: one
 * H2Connection per socket. Closing stops accepting, sends GOAWAY on every connection so clients
 * open no new streams, lets the open ones finish, and cuts off whatever is left when the grace
 * period ends.
 */
import { createServer, type Server } from 'node:net';
import { H2Connection, type ConnectionLimits, type StreamHandler } from './connection.js';

export interface H2ServerOptions {
  host: string;
  port: number;
  limits: ConnectionLimits;
  onStream: StreamHandler;
  /** The peer address streams report, from the socket's (read once per connection). */
  addressOf: (remote: string | undefined) => string;
  /** Connection-level trouble (socket errors, peers that do not read); for the log. */
  onProblem: (err: Error) => void;
}

export interface H2Server {
  port: number;
  close(graceMs: number): Promise<void>;
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

export async function startH2Server(opts: H2ServerOptions): Promise<H2Server> {
  const connections = new Set<H2Connection>();
  const server = createServer((socket) => {
    connections.add(
      new H2Connection(
        socket,
        opts.addressOf(socket.remoteAddress),
        opts.limits,
        opts.onStream,
        (c) => connections.delete(c),
        opts.onProblem,
      ),
    );
  });
  const port = await listen(server, opts.host, opts.port);
  return {
    port,
    close: (graceMs) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          for (const c of connections) c.destroy();
        }, graceMs);
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        for (const c of connections) c.goAway();
      }),
  };
}
