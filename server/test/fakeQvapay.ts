/** A QvaPay API stand-in on loopback: create_invoice and transaction/{uuid}, like the real v1 API. */
import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';

export interface FakeTransaction {
  uuid: string;
  remote_id: string;
  amount: number;
  status: 'pending' | 'paid';
}

export class FakeQvaPay {
  readonly transactions = new Map<string, FakeTransaction>();
  requests: string[] = [];
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
        const uuid = randomUUID();
        const tx: FakeTransaction = {
          uuid,
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

  /** The customer paid at QvaPay. */
  pay(uuid: string): void {
    this.transactions.get(uuid)!.status = 'paid';
  }

  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}
