/**
 * A TCP proxy a test can cut: it stands for a network path (the database host, an agent's link to
 * the control plane) that fails and comes back, without stopping what is behind it.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

/** Forwards to `target`; `cut()` drops every connection and refuses new ones until `restore()`. */
export class Proxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  port = 0;
  constructor(private readonly target: { host: string; port: number }) {}

  async start(port = 0): Promise<void> {
    this.server = createServer((client) => {
      if (!this.server) return void client.destroy();
      const upstream = connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((r) => this.server!.listen(port, '127.0.0.1', () => r()));
    // A proxy left open must not keep the test process alive.
    this.server.unref();
    this.port = (this.server.address() as { port: number }).port;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => server?.close(() => r()) ?? r());
  }

  restore(): Promise<void> {
    return this.start(this.port);
  }
}
