/**
 * A network between zones on one machine, which a test can partition without root: each zone has its own
 * loopback address (127.0.<10 + i>.1), and every node is reached through two TCP proxies on its zone's
 * address, one for its client port and one for its cluster bus port. The nodes announce the proxies and
 * connect out from their zone's address (`bind-source-addr`), so every connection between nodes (gossip,
 * replication) and from clients passes a proxy that knows the zones of both ends: a client's zone is the
 * address it connects from (`clientFrom`), anything else (the test, the manager) is outside every zone.
 *
 * `isolate(zone)` cuts the zone off as a network partition does: nothing passes between it and the rest any
 * more (connections stay open, their data is dropped, a close does not reach the other end, new connections
 * hang), while everything inside the zone, and outside it, works on. `heal()` resets the connections that
 * were cut (as TCP gives up on them) and lets new ones through.
 */
import * as net from 'net';
// ioredis is the controller package's dependency (one workspace, one node_modules)
// eslint-disable-next-line import/no-extraneous-dependencies
import { AbstractConnector } from 'ioredis';
import { splitAddress } from '../../../controller/src/redis/executor';

interface Pipe {
  /** The zone the connection comes from (undefined: outside every zone). */
  readonly from?: string;
  /** The zone of the proxied node. */
  readonly to: string;
  readonly sockets: [net.Socket, net.Socket];
  cut: boolean;
}

export class ZoneNetwork {
  private readonly servers: net.Server[] = [];
  private readonly pipes = new Set<Pipe>();
  private isolated?: string;

  constructor(private readonly zones: readonly string[]) {}

  /** The zone's own loopback address. */
  public address(zone: string): string {
    const i = this.zones.indexOf(zone);
    if (i < 0) throw new Error(`no zone ${zone} in ${this.zones.join(', ')}`);
    return `127.0.${10 + i}.1`;
  }

  /**
   * Starts the proxies of a node of `zone` to its client and bus ports (host:port each), on ports P and
   * P + 10000 of the zone's address (CLUSTER MEET finds the bus at the client port + 10000); resolves to P.
   */
  public async exposeNode(zone: string, client: string, bus: string): Promise<number> {
    for (;;) {
      const port = 20_000 + Math.floor(Math.random() * 35_000);
      const proxy = await this.expose(zone, client, port).catch(() => undefined);
      if (!proxy) continue;
      if (await this.expose(zone, bus, port + 10_000).then(() => true, () => false)) return port;
      this.servers.splice(this.servers.indexOf(proxy), 1);
      proxy.close();
    }
  }

  private async expose(zone: string, target: string, port: number): Promise<net.Server> {
    const [host, targetPort] = splitAddress(target);
    const server = net.createServer((socket) => this.forward(socket, zone, host, targetPort));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, this.address(zone), resolve);
    });
    this.servers.push(server);
    return server;
  }

  /** Cuts `zone` off from the rest (one zone at a time). */
  public isolate(zone: string): void {
    this.address(zone);
    this.isolated = zone;
    for (const p of this.pipes) p.cut ||= this.blocked(p.from, p.to);
  }

  /** Ends the partition: the connections it cut are reset, new ones pass. */
  public heal(): void {
    this.isolated = undefined;
    for (const p of [...this.pipes].filter((x) => x.cut)) this.drop(p);
  }

  /** An ioredis `Connector` whose connections come from `zone`'s address: a client inside that zone. */
  public clientFrom(zone: string): new (options: any) => AbstractConnector {
    const localAddress = this.address(zone);
    return class extends AbstractConnector {
      constructor(private readonly options: any) {
        super(options.disconnectTimeout);
      }

      public connect(): Promise<net.Socket> {
        this.connecting = true;
        this.stream = net.createConnection({ host: this.options.host, port: this.options.port, localAddress });
        return Promise.resolve(this.stream as net.Socket);
      }
    };
  }

  public async close(): Promise<void> {
    for (const p of this.pipes) this.drop(p);
    await Promise.all(this.servers.map((s) => new Promise((r) => s.close(r))));
  }

  private blocked(from: string | undefined, to: string): boolean {
    return this.isolated !== undefined && (from === this.isolated) !== (to === this.isolated);
  }

  private forward(client: net.Socket, zone: string, host: string, port: number): void {
    const from = this.zones.find((z) => this.address(z) === client.remoteAddress);
    const upstream = net.connect({ host, port });
    const pipe: Pipe = { from, to: zone, sockets: [client, upstream], cut: this.blocked(from, zone) };
    this.pipes.add(pipe);
    for (const [a, b] of [[client, upstream], [upstream, client]]) {
      a.on('data', (chunk) => { if (!pipe.cut) b.write(chunk); });
      a.on('error', () => undefined);
      // while cut, a close does not reach the other end (as over a partition); heal() resets both
      a.on('close', () => { if (!pipe.cut) this.drop(pipe); });
    }
  }

  private drop(pipe: Pipe): void {
    this.pipes.delete(pipe);
    for (const s of pipe.sockets) s.destroy();
  }
}
