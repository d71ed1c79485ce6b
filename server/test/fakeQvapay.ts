/** A QvaPay API stand-in on loopback: create_invoice and transaction/{uuid}, like the real v1 API. */
import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';

/** A transaction as QvaPay's transaction/{uuid} answers it (fields a test may change or delete). */
export interface FakeTransaction {
  uuid: string;
  /** QvaPay's numeric id of the app; the app's uuid (our QVAPAY_APP_ID) is app.uuid. */
  app_id?: number;
  app?: { uuid: string; name: string };
  remote_id?: string;
  amount?: number | string;
  status: 'pending' | 'paid';
}

export class FakeQvaPay {
  readonly transactions = new Map<string, FakeTransaction>();
  requests: string[] = [];
  /** Set to make the next create_invoice answer this transaction uuid (e.g. one already used). */
  nextUuid: string | null = null;
  private server!: Server;
  port = 0;

  static async start(appId = 'app-1', appSecret = 'secreto'): Promise<FakeQvaPay> {
    const q = new FakeQvaPay();
    q.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      q.requests.push(url.pathname);
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (url.searchParams.get('app_id') !== appId || url.searchParams.get('app_secret') !== appSecret)
        return send(401, { error: 'unauthorized' });
      if (url.pathname === '/api/v1/create_invoice') {
        const uuid = q.nextUuid ?? randomUUID();
        q.nextUuid = null;
        const tx: FakeTransaction = {
          uuid,
          app_id: 42,
          app: { uuid: appId, name: 'VPN' },
          remote_id: url.searchParams.get('remote_id') ?? '',
          amount: Number(url.searchParams.get('amount')),
          status: 'pending',
        };
        q.transactions.set(uuid, tx);
        return send(200, {
          app_id: appId,
          amount: tx.amount,
          description: url.searchParams.get('description'),
          remote_id: tx.remote_id,
          signed: '1',
          transation_uuid: uuid,
          url: `https://qvapay.example/pay/${uuid}`,
          signedUrl: `https://qvapay.example/pay/${uuid}?signature=abc`,
        });
      }
      const m = /^\/api\/v1\/transaction\/([^/]+)$/.exec(url.pathname);
      if (m) {
        const tx = q.transactions.get(decodeURIComponent(m[1]!));
        return tx ? send(200, tx) : send(404, { error: 'not found' });
      }
      send(404, { error: 'no route' });
    });
    await new Promise<void>((r) => q.server.listen(0, '127.0.0.1', () => r()));
    const a = q.server.address();
    q.port = typeof a === 'object' && a ? a.port : 0;
    return q;
  }

  get apiUrl(): string {
    return `http://127.0.0.1:${this.port}/api/v1`;
  }

  /** A transaction made outside our invoices (another app's, or an attacker's own payment). */
  add(tx: Omit<FakeTransaction, 'uuid'>): string {
    const uuid = randomUUID();
    this.transactions.set(uuid, { uuid, ...tx });
    return uuid;
  }

  /** The customer paid at QvaPay. */
  pay(uuid: string): void {
    this.transactions.get(uuid)!.status = 'paid';
  }

  /** Listens again on the same port after {@link close} (QvaPay back up). */
  listenAgain(): Promise<void> {
    return new Promise((r) => this.server.listen(this.port, '127.0.0.1', () => r()));
  }

  close(): Promise<void> {
    return new Promise((r) => {
      this.server.close(() => r());
      // Kept-alive connections would hold close() open.
      this.server.closeAllConnections();
    });
  }
}
