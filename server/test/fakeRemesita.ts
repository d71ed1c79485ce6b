/**
 * A stand-in of Remesita on loopback, built only from what Remesita publicly documents (its own
 * WooCommerce plugin, REMEXFULAP/remesita-pay-for-woocommerce, and its SDKs' descriptions; the source
 * of each endpoint and field is listed in docs/decisions.md, "Remesita: the documented surface"). It
 * knows nothing of the product: no field exists here because the product reads it.
 *
 * - `POST /rest/v1/auth {api_key, api_secret}` → `{accessToken, user}`; later calls send
 *   `Authorization: <accessToken>`.
 * - `POST /rest/v1/payment-link {businessUnitId, amount, concept, customId, ipnUrl, successUrl,
 *   cancelUrl, [sandbox, methods, feeAssumedBy, payerName, payerPhone, payerEmail]}` → `{link}`.
 * - `POST /rest/v1/payment/refund {reference, amount, reason}` → `{success: true, id}` or
 *   `{success: false, error}`.
 * - The IPN: JSON POSTed to the link's `ipnUrl` with `app_id, status, paid_at, liquid_at,
 *   cancelled_at, cancel_reason, custom_id, concept, ref, payment_method, amount, recipient_account,
 *   customer{name, phone, email}`.
 *
 * The payment page itself (`link`) is served here too: "Pagar" and "Cancelar" post the IPN and send
 * the browser to `successUrl` / `cancelUrl`, as the hosted page does.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';

export interface FakeLink {
  /** The payment's reference, Remesita's `ref`, known once someone pays. */
  ref: string;
  businessUnitId: string;
  amount: number;
  concept: string;
  customId: string;
  ipnUrl: string;
  successUrl: string;
  cancelUrl: string;
  sandbox: boolean;
  link: string;
}

/** One IPN as Remesita sends it (the documented fields only). */
export interface Ipn {
  app_id: string;
  status:
    'start' | 'processing' | 'paid' | 'payment_review' | 'completed' | 'cancelled' | 'canceled' | 'paused';
  paid_at: string | null;
  liquid_at: string | null;
  cancelled_at: string | null;
  cancel_reason: string | null;
  custom_id: string;
  concept: string;
  ref: string;
  payment_method: string;
  amount: number;
  recipient_account: string;
  customer: { name: string; phone: string; email: string };
}

/** How an IPN reaches the shop: by default an HTTP POST to the URL; tests may route it in-process. */
export type Deliver = (url: string, body: Ipn) => Promise<{ status: number; body: string }>;

const post: Deliver = async (url, body) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.text() };
};

export class FakeRemesita {
  readonly links: FakeLink[] = [];
  readonly refunds: { reference: string; amount: number; reason: string; id: string }[] = [];
  /** Every request to the API, as "METHOD /path". */
  requests: string[] = [];
  /** Every IPN sent, with the shop's answer. */
  readonly sent: { body: Ipn; status: number; answer: string }[] = [];
  /** Set to a message to make the next refunds fail as Remesita would answer. */
  refundError: string | null = null;
  deliver: Deliver = post;
  private readonly tokens = new Set<string>();
  private server!: Server;
  port = 0;

  static async start(apiKey = 'rk-1', apiSecret = 'rs-1', businessId = 'bu-1'): Promise<FakeRemesita> {
    const r = new FakeRemesita(businessId);
    r.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        void r.handle(req.method ?? 'GET', url, raw, req.headers.authorization, apiKey, apiSecret, send, res);
      });
    });
    await new Promise<void>((done) => r.server.listen(0, '127.0.0.1', () => done()));
    const a = r.server.address();
    r.port = typeof a === 'object' && a ? a.port : 0;
    return r;
  }

  private constructor(private readonly businessId: string) {}

  private async handle(
    method: string,
    url: URL,
    raw: string,
    authorization: string | undefined,
    apiKey: string,
    apiSecret: string,
    send: (status: number, body: unknown) => void,
    res: ServerResponse,
  ): Promise<void> {
    // The hosted payment page: not part of the API, what a customer's browser sees.
    const page = /^\/pay\/([A-Za-z0-9]+)(?:\/(pay|cancel))?$/.exec(url.pathname);
    if (page) {
      const link = this.links.find((l) => l.link.endsWith(`/pay/${page[1]}`));
      if (!link) return send(404, { error: 'enlace no encontrado' });
      if (method === 'GET' && !page[2]) {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(
          `<!doctype html><title>Remesita</title><p>${link.concept} — ${link.amount.toFixed(2)} USD</p>` +
            `<form method="post" action="/pay/${page[1]}/pay"><button>Pagar</button></form>` +
            `<form method="post" action="/pay/${page[1]}/cancel"><button>Cancelar</button></form>`,
        );
        return;
      }
      if (method === 'POST' && page[2]) {
        if (page[2] === 'pay') await this.pay(link.customId);
        else await this.cancel(link.customId);
        res.writeHead(303, { location: page[2] === 'pay' ? link.successUrl : link.cancelUrl });
        res.end();
        return;
      }
    }
    this.requests.push(`${method} ${url.pathname}`);
    let body: Record<string, unknown> = {};
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      return send(400, { error: 'JSON no válido' });
    }
    if (method === 'POST' && url.pathname === '/rest/v1/auth') {
      if (body.api_key !== apiKey || body.api_secret !== apiSecret)
        return send(401, { error: 'Credenciales inválidas' });
      const token = randomBytes(16).toString('hex');
      this.tokens.add(token);
      return send(200, { accessToken: token, user: { businessUnitId: this.businessId } });
    }
    if (!this.tokens.has(authorization ?? '')) return send(401, { error: 'unauthorized' });
    if (method === 'POST' && url.pathname === '/rest/v1/payment-link') {
      if (body.businessUnitId !== this.businessId) return send(404, { error: 'unidad de negocio' });
      for (const f of ['amount', 'concept', 'customId', 'ipnUrl', 'successUrl', 'cancelUrl'])
        if (body[f] === undefined || body[f] === '') return send(400, { error: `falta ${f}` });
      // Documented: a number in USD with 2 decimals; a concept of letters, digits and spaces.
      if (typeof body.amount !== 'number' || Math.round(body.amount * 100) !== body.amount * 100)
        return send(400, { error: 'amount' });
      if (!/^[A-Za-z0-9 ]+$/.test(String(body.concept))) return send(400, { error: 'concept' });
      const id = randomBytes(6).toString('hex').toUpperCase();
      const link: FakeLink = {
        ref: `RP${id}`,
        businessUnitId: this.businessId,
        amount: body.amount,
        concept: String(body.concept),
        customId: String(body.customId),
        ipnUrl: String(body.ipnUrl),
        successUrl: String(body.successUrl),
        cancelUrl: String(body.cancelUrl),
        sandbox: body.sandbox === true,
        link: `${this.baseUrl}/pay/${id}`,
      };
      this.links.push(link);
      return send(200, { link: link.link });
    }
    if (method === 'POST' && url.pathname === '/rest/v1/payment/refund') {
      if (this.refundError) return send(200, { success: false, error: this.refundError });
      const reference = String(body.reference ?? '');
      if (!this.links.some((l) => l.ref === reference))
        return send(200, { success: false, error: 'Pago no encontrado' });
      const refund = {
        reference,
        amount: Number(body.amount),
        reason: String(body.reason ?? ''),
        id: `RF${randomBytes(5).toString('hex').toUpperCase()}`,
      };
      this.refunds.push(refund);
      return send(200, { success: true, id: refund.id });
    }
    send(404, { error: 'no route' });
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  linkOf(invoiceId: string): FakeLink {
    const link = this.links.find((l) => l.customId === invoiceId);
    if (!link) throw new Error(`no payment link for ${invoiceId}`);
    return link;
  }

  /** The IPN Remesita would send for this link in this status (fields may be overridden, as a forger would). */
  ipn(invoiceId: string, status: Ipn['status'], over: Partial<Ipn> = {}): Ipn {
    const link = this.linkOf(invoiceId);
    const now = new Date().toISOString();
    return {
      app_id: link.businessUnitId,
      status,
      paid_at: status === 'paid' || status === 'completed' ? now : null,
      liquid_at: status === 'completed' ? now : null,
      cancelled_at: status === 'cancelled' || status === 'canceled' ? now : null,
      cancel_reason: status === 'cancelled' || status === 'canceled' ? 'Cancelado por el cliente' : null,
      custom_id: link.customId,
      concept: link.concept,
      ref: link.ref,
      payment_method: 'REMWALLET',
      amount: link.amount,
      recipient_account: 'cuenta-negocio',
      customer: { name: 'Ana Pérez', phone: '+5355555555', email: 'ana@example.com' },
      ...over,
    };
  }

  /** Sends an IPN to the link's ipnUrl (or another URL) and returns the shop's answer. */
  async notify(invoiceId: string, body: Ipn, url = this.linkOf(invoiceId).ipnUrl) {
    const answer = await this.deliver(url, body);
    this.sent.push({ body, status: answer.status, answer: answer.body });
    return answer;
  }

  /** The customer paid the link: Remesita notifies `paid` (optionally of another amount). */
  pay(invoiceId: string, amount?: number) {
    return this.notify(invoiceId, this.ipn(invoiceId, 'paid', amount === undefined ? {} : { amount }));
  }

  /** The funds were settled: `completed`, same payment. */
  complete(invoiceId: string) {
    return this.notify(invoiceId, this.ipn(invoiceId, 'completed'));
  }

  /** The customer canceled at Remesita. */
  cancel(invoiceId: string) {
    return this.notify(invoiceId, this.ipn(invoiceId, 'cancelled'));
  }

  /** Back on the same port after {@link close} (the links already handed out point here). */
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
