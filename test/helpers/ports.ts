/** Free TCP ports on 127.0.0.1 for servers that need a known port before they start. */
import { createServer } from 'node:net';

/** Ports this process has handed out: the OS may offer a just-closed port again at once. */
const handedOut = new Set<number>();

function probePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * A port free now and not handed out before by this process (two calls in a row could get the
 * same port back, and a server then refused `--http-port` and `--grpc-port` being equal).
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await probePort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}
