/**
 * A TCP proxy in front of a dependency (PostgreSQL, MariaDB, Redis) that can be told to fail:
 *
 * - `up`: bytes flow both ways;
 * - `refuse`: the listening port is closed (new connections get ECONNREFUSED) and every open
 *   connection is reset, as when the dependency's host is up but the service is down;
 * - `blackhole`: nothing flows and nothing closes: open connections stall with their bytes held,
 *   new connections are accepted and never answered, as when a route drops packets or the
 *   dependency hangs. Back `up`, held bytes flow on in order (what TCP retransmission does once
 *   a dropped route heals), so a client that waited sees its answers late, never out of order.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export type FaultMode = 'up' | 'refuse' | 'blackhole';

interface Link {
  client: Socket;
  upstream: Socket | undefined;
  /** Bytes held while the link is stalled, per direction. */
  toUpstream: Buffer[];
  toClient: Buffer[];
  /** When the oldest of the bytes held toward upstream arrived. */
  heldSince?: number;
}

export class FaultProxy {
  private server: Server | undefined;
  private readonly links = new Set<Link>();
  private current: FaultMode = 'up';
  port = 0;

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  static async start(targetHost: string, targetPort: number): Promise<FaultProxy> {
    const proxy = new FaultProxy(targetHost, targetPort);
    await proxy.listen();
    return proxy;
  }

  get mode(): FaultMode {
    return this.current;
  }

  /**
   * Open connections holding bytes the client sent while the proxy stalled them: a client that
   * gave up on an unanswered connection and closed it is no longer counted.
   */
  get heldConnections(): number {
    let n = 0;
    for (const link of this.links) if (link.toUpstream.length > 0) n++;
    return n;
  }

  /** How long the longest-waiting open connection has held unanswered bytes from its client (0: none). */
  get oldestHeldMs(): number {
    let oldest = 0;
    const now = Date.now();
    for (const link of this.links)
      if (link.toUpstream.length > 0 && link.heldSince !== undefined) oldest = Math.max(oldest, now - link.heldSince);
    return oldest;
  }

  /** host:port clients connect to. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async set(mode: FaultMode): Promise<void> {
    if (mode === this.current) return;
    const was = this.current;
    this.current = mode;
    if (mode === 'refuse') {
      for (const link of this.links) this.drop(link);
      await this.unlisten();
      return;
    }
    if (was === 'refuse') await this.listen();
    if (mode === 'up') for (const link of this.links) this.flow(link);
  }

  async close(): Promise<void> {
    for (const link of this.links) this.drop(link);
    await this.unlisten();
  }

  private listen(): Promise<void> {
    const server = createServer((client) => this.accept(client));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        const addr = server.address();
        if (typeof addr === 'object' && addr) this.port = addr.port;
        resolve();
      });
    });
  }

  private unlisten(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }

  private accept(client: Socket): void {
    const link: Link = { client, upstream: undefined, toUpstream: [], toClient: [] };
    this.links.add(link);
    client.on('data', (d: Buffer) => {
      if (this.current === 'up' && link.upstream && !link.upstream.connecting) link.upstream.write(d);
      else {
        if (link.toUpstream.length === 0) link.heldSince = Date.now();
        link.toUpstream.push(d);
      }
    });
    client.on('error', () => this.drop(link));
    client.on('close', () => this.drop(link));
    if (this.current === 'up') this.flow(link);
  }

  /** Opens the upstream side if needed and sends what was held. */
  private flow(link: Link): void {
    if (!link.upstream) {
      const upstream = connect(this.targetPort, this.targetHost);
      link.upstream = upstream;
      upstream.on('data', (d: Buffer) => {
        if (this.current === 'up') link.client.write(d);
        else link.toClient.push(d);
      });
      upstream.on('connect', () => this.flush(link));
      upstream.on('error', () => this.drop(link));
      upstream.on('close', () => this.drop(link));
      return;
    }
    this.flush(link);
  }

  private flush(link: Link): void {
    if (this.current !== 'up' || !link.upstream || link.upstream.connecting) return;
    for (const d of link.toUpstream.splice(0)) link.upstream.write(d);
    link.heldSince = undefined;
    for (const d of link.toClient.splice(0)) link.client.write(d);
  }

  private drop(link: Link): void {
    if (!this.links.delete(link)) return;
    link.client.resetAndDestroy();
    link.upstream?.destroy();
  }
}
