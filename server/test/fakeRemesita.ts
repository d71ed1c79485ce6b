/**
 * A Remesita REST API stand-in on loopback, speaking what Remesita's WooCommerce plugin and SDK
 * documentation describe: POST /rest/v1/auth (api_key, api_secret → accessToken), POST
 * /rest/v1/payment-link (businessUnitId, amount, concept, customId, ipnUrl, successUrl, cancelUrl →
 * link) and GET /rest/v1/operation/orders (start, end, pg, pg_size → items, allow_next). Two orders
 * per page at most, so paging is exercised.
 */
import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';

export interface FakeOrder {
  reference: string;
  customId: string;
  amount: number | string | undefined;
  concept: string;
  businessUnitId: string;
  ipnUrl: string;
  successUrl: string;
  cancelUrl: string;
  status: 'start' | 'paid' | 'completed' | 'canceled';
  created_at: string;
}

const PAGE = 2;

export class FakeRemesita {
  readonly orders: FakeOrder[] = [];
  /** Every request, as "METHOD /path". */
  requests: string[] = [];
  private readonly tokens = new Set<string>();
  private server!: Server;
  port = 0;

  static async start(apiKey = 'rk-1', apiSecret = 'rs-1', businessId = 'bu-1'): Promise<FakeRemesita> {
    const r = new FakeRemesita();
    r.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      r.requests.push(`${req.method} ${url.pathname}`);
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
        if (req.method === 'POST' && url.pathname === '/rest/v1/auth') {
          if (body.api_key !== apiKey || body.api_secret !== apiSecret)
            return send(401, { error: 'Credenciales inválidas' });
          const token = randomBytes(16).toString('hex');
          r.tokens.add(token);
          return send(200, { accessToken: token });
        }
        if (!r.tokens.has(req.headers.authorization ?? '')) return send(401, { error: 'unauthorized' });
        if (req.method === 'POST' && url.pathname === '/rest/v1/payment-link') {
          if (body.businessUnitId !== businessId) return send(404, { error: 'unidad de negocio' });
          for (const f of ['amount', 'concept', 'customId', 'ipnUrl', 'successUrl', 'cancelUrl'])
            if (body[f] === undefined || body[f] === '') return send(400, { error: `falta ${f}` });
          const order: FakeOrder = {
            reference: `RP${randomBytes(6).toString('hex').toUpperCase()}`,
            customId: String(body.customId),
            amount: Number(body.amount),
            concept: String(body.concept),
            businessUnitId: businessId,
            ipnUrl: String(body.ipnUrl),
            successUrl: String(body.successUrl),
            cancelUrl: String(body.cancelUrl),
            status: 'start',
            created_at: new Date().toISOString().slice(0, 19).replace('T', ' '),
          };
          r.orders.push(order);
          return send(200, { link: `https://remesita.example/pay/${order.reference}` });
        }
        if (req.method === 'GET' && url.pathname === '/rest/v1/operation/orders') {
          const start = url.searchParams.get('start') ?? '0000';
          const end = url.searchParams.get('end') ?? '9999';
          const pg = Number(url.searchParams.get('pg') ?? 1);
          const inRange = r.orders.filter((o) => o.created_at >= start && o.created_at <= end);
          const items = inRange.slice((pg - 1) * PAGE, pg * PAGE);
          return send(200, {
            items,
            pg,
            pg_size: PAGE,
            pages: Math.ceil(inRange.length / PAGE),
            total: inRange.length,
            allow_next: pg * PAGE < inRange.length,
          });
        }
        send(404, { error: 'no route' });
      });
    });
    await new Promise<void>((done) => r.server.listen(0, '127.0.0.1', () => done()));
    const a = r.server.address();
    r.port = typeof a === 'object' && a ? a.port : 0;
    return r;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  orderOf(invoiceId: string): FakeOrder {
    const order = this.orders.find((o) => o.customId === invoiceId);
    if (!order) throw new Error(`no order for ${invoiceId}`);
    return order;
  }

  /** The customer paid the link (optionally a different amount than asked). */
  pay(invoiceId: string, amount?: number | string): FakeOrder {
    const order = this.orderOf(invoiceId);
    order.status = 'paid';
    if (amount !== undefined) order.amount = amount;
    return order;
  }

  /** The customer canceled at Remesita. */
  cancel(invoiceId: string): FakeOrder {
    const order = this.orderOf(invoiceId);
    order.status = 'canceled';
    return order;
  }

  listenAgain(): Promise<void> {
    return new Promise((done) => this.server.listen(this.port, '127.0.0.1', () => done()));
  }

  close(): Promise<void> {
    return new Promise((done) => {
      this.server.close(() => done());
      this.server.closeAllConnections();
    });
  }
}
