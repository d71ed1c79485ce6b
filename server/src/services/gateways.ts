/**
 * Payment gateways. Each creates a payment for an invoice (returning the URL the customer pays at)
 * and can say, server to server, whether a transaction was paid. Only that server-side answer
 * credits an invoice (architecture decision 9); the browser's return only displays.
 */
export interface CreatedPayment {
  paymentUrl: string;
  transactionUuid: string | null;
}

/**
 * What the gateway itself says about a payment. Every field is checked against the invoice by
 * {@link InvoiceService}; a field the gateway left out is null and refuses the payment (fail closed).
 */
export interface VerifiedPayment {
  paid: boolean;
  /** The gateway's transaction id as it answered it (QvaPay's uuid, Remesita's order reference). */
  transactionUuid: string | null;
  /** The invoice the gateway says it paid (the remote_id / external id we gave it). */
  remoteId: string | null;
  /** The amount paid; NaN or null when the answer has none. */
  amount: number | null;
  /** Whether the payment went to our own merchant account (QvaPay app, Remesita business unit); null: not said. */
  ownAccount: boolean | null;
}

/** What a gateway is asked to charge. */
export interface NewPayment {
  id: string;
  amount: number;
  description: string;
  /**
   * A per-invoice secret that cannot be guessed, for a gateway that is handed a notification URL
   * (Remesita): the URL carries it, the invoice stores only its hash.
   */
  notifySecret: string;
}

/** What a gateway needs to find a payment again: the invoice, with what its creation stored. */
export interface InvoiceRef {
  id: string;
  transactionUuid: string | null;
  createdAt: Date;
}

export interface Gateway {
  name: 'qvapay' | 'remesita' | 'sandbox';
  /**
   * No gateway is given a URL derived from the request (its Host can be forged): QvaPay's callback
   * and return URLs are set in the QvaPay app itself (README), the sandbox page is on this server.
   */
  create(invoice: NewPayment): Promise<CreatedPayment>;
  verify(invoice: InvoiceRef): Promise<VerifiedPayment>;
}

export class GatewayError extends Error {}

/** A gateway's amount (a number or a decimal string); anything else is NaN, never 0. */
export function amountOf(value: unknown): number | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  return Number.NaN;
}

/** QvaPay API v1: create_invoice and transaction/{uuid}, authenticated with the app's id and secret. */
export class QvaPayGateway implements Gateway {
  readonly name = 'qvapay' as const;

  constructor(
    private readonly cfg: { appId: string; appSecret: string; apiUrl: string },
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  private async call(path: string, params: Record<string, string>): Promise<Record<string, unknown>> {
    const url = new URL(`${this.cfg.apiUrl}/${path}`);
    for (const [k, v] of Object.entries({
      app_id: this.cfg.appId,
      app_secret: this.cfg.appSecret,
      ...params,
    }))
      url.searchParams.set(k, v);
    let res: Response;
    try {
      res = await this.fetchImpl(url, {
        signal: AbortSignal.timeout(15_000),
        headers: { accept: 'application/json' },
      });
    } catch (e) {
      throw new GatewayError(`QvaPay no responde: ${(e as Error).message}`);
    }
    if (!res.ok) throw new GatewayError(`QvaPay respondió ${res.status}`);
    return (await res.json()) as Record<string, unknown>;
  }

  async create(invoice: NewPayment): Promise<CreatedPayment> {
    const data = await this.call('create_invoice', {
      amount: invoice.amount.toFixed(2),
      description: invoice.description,
      remote_id: invoice.id,
      signed: '1',
    });
    const url = (data.signedUrl ?? data.url) as unknown;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url))
      throw new GatewayError('QvaPay no devolvió una URL de pago');
    const uuid = (data.transation_uuid ?? data.transaction_uuid) as unknown;
    // Without its transaction uuid the invoice could never be tied to a payment: refuse it now.
    if (typeof uuid !== 'string' || !uuid || uuid.length > 100)
      throw new GatewayError('QvaPay no devolvió el identificador de la transacción');
    return { paymentUrl: url, transactionUuid: uuid };
  }

  async verify(invoice: InvoiceRef): Promise<VerifiedPayment> {
    if (!invoice.transactionUuid) throw new GatewayError('la factura no tiene transacción de QvaPay');
    const data = await this.call(`transaction/${encodeURIComponent(invoice.transactionUuid)}`, {});
    // QvaPay answers its app's numeric id in app_id and the app's uuid (what we are configured
    // with) in app.uuid; either naming our app counts, neither (or another app) refuses.
    const app = data.app as { uuid?: unknown } | null | undefined;
    const appIds = [data.app_id, app?.uuid].filter((v) => v !== undefined && v !== null).map(String);
    return {
      paid: String(data.status).toLowerCase() === 'paid',
      transactionUuid: typeof data.uuid === 'string' ? data.uuid : null,
      remoteId: typeof data.remote_id === 'string' ? data.remote_id : null,
      amount: amountOf(data.amount),
      ownAccount: appIds.length === 0 ? null : appIds.includes(this.cfg.appId),
    };
  }
}

/**
 * Remesita through its REST API (docs/decisions.md, "Remesita"): a token from api_key/api_secret,
 * a payment link per invoice (business unit, amount, concept, our invoice id as the external id,
 * IPN/success/cancel URLs), and confirmation by listing the business's orders around the invoice's
 * creation and finding the one with our invoice id. The IPN URL is this server's PUBLIC_URL with the
 * invoice id and its secret; the notification itself is never believed, only this listing.
 */
export class RemesitaGateway implements Gateway {
  readonly name = 'remesita' as const;

  constructor(
    private readonly cfg: {
      apiKey: string;
      apiSecret: string;
      businessId: string;
      baseUrl: string;
      publicUrl: string;
    },
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  private async request(
    path: string,
    init: { method?: string; body?: unknown; token?: string; query?: Record<string, string> } = {},
  ): Promise<unknown> {
    const url = new URL(`${this.cfg.baseUrl}${path}`);
    for (const [k, v] of Object.entries(init.query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    // As Remesita's own WooCommerce plugin sends it: the token itself, no scheme.
    if (init.token) headers.authorization = init.token;
    let res: Response;
    try {
      res = await this.fetchImpl(url, {
        method: init.method ?? 'GET',
        headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        signal: AbortSignal.timeout(15_000),
      });
    } catch (e) {
      throw new GatewayError(`Remesita no responde: ${(e as Error).message}`);
    }
    if (!res.ok) throw new GatewayError(`Remesita respondió ${res.status}`);
    try {
      return await res.json();
    } catch {
      throw new GatewayError('Remesita no respondió JSON');
    }
  }

  private async token(): Promise<string> {
    const data = (await this.request('/rest/v1/auth', {
      method: 'POST',
      body: { api_key: this.cfg.apiKey, api_secret: this.cfg.apiSecret },
    })) as Record<string, unknown> | null;
    const token = data?.accessToken ?? data?.access_token ?? data?.token;
    if (typeof token !== 'string' || !token) throw new GatewayError('Remesita no devolvió un token');
    return token;
  }

  async create(invoice: NewPayment): Promise<CreatedPayment> {
    const token = await this.token();
    const back = `${this.cfg.publicUrl}/dashboard/payment?remote_id=${invoice.id}`;
    const data = (await this.request('/rest/v1/payment-link', {
      method: 'POST',
      token,
      body: {
        businessUnitId: this.cfg.businessId,
        amount: Number(invoice.amount.toFixed(2)),
        concept: plainConcept(invoice.description),
        customId: invoice.id,
        externalId: invoice.id,
        ipnUrl: `${this.cfg.publicUrl}/api/payments/remesita/ipn/${invoice.id}/${invoice.notifySecret}`,
        successUrl: `${back}&status=success`,
        cancelUrl: `${back}&status=canceled`,
      },
    })) as Record<string, unknown> | null;
    const link = data?.link;
    if (typeof link !== 'string' || !/^https?:\/\//.test(link))
      throw new GatewayError('Remesita no devolvió un enlace de pago');
    // The link's reference, if Remesita names one now; else the paid order's, once confirmed.
    const ref = data?.reference ?? data?.ref;
    return { paymentUrl: link, transactionUuid: typeof ref === 'string' && ref ? ref.slice(0, 100) : null };
  }

  /** The business's orders from shortly before the invoice was created until now, page by page. */
  async verify(invoice: InvoiceRef): Promise<VerifiedPayment> {
    const token = await this.token();
    const fmt = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');
    const start = fmt(new Date(invoice.createdAt.getTime() - 10 * 60_000));
    const end = fmt(new Date(Date.now() + 10 * 60_000));
    const found: Record<string, unknown>[] = [];
    for (let pg = 1; pg <= 50; pg++) {
      const data = (await this.request('/rest/v1/operation/orders', {
        token,
        query: { start, end, pg: String(pg), pg_size: '100' },
      })) as Record<string, unknown> | unknown[] | null;
      const items = Array.isArray(data) ? data : (data?.items ?? data?.data);
      if (!Array.isArray(items)) throw new GatewayError('Remesita no devolvió la lista de órdenes');
      for (const item of items as Record<string, unknown>[])
        if (item && externalIdOf(item) === invoice.id) found.push(item);
      const more = !Array.isArray(data) && data?.allow_next === true && items.length > 0;
      if (!more) break;
    }
    const paid = found.find((o) => PAID.has(String(o.status).toLowerCase()));
    const order = paid ?? found[0];
    if (!order) return { paid: false, transactionUuid: null, remoteId: null, amount: null, ownAccount: null };
    const ref = order.reference ?? order.ref ?? order.id;
    const unit = order.businessUnitId ?? order.business_unit_id;
    return {
      paid: paid !== undefined,
      transactionUuid: typeof ref === 'string' || typeof ref === 'number' ? String(ref) : null,
      remoteId: externalIdOf(order),
      amount: amountOf(order.amount),
      // Listed with our own token, so the business's own, unless it names another business unit.
      ownAccount: unit === undefined || unit === null ? true : String(unit) === this.cfg.businessId,
    };
  }
}

/** Remesita's order states that mean the customer paid ("completed": and the funds were settled). */
const PAID = new Set(['paid', 'completed']);

/**
 * The concept in plain letters, digits and spaces, as Remesita's own WooCommerce plugin cleans it
 * before sending (accents, dashes and punctuation removed): "Mensual — Móvil" → "Mensual Movil".
 */
export function plainConcept(text: string): string {
  const plain = text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9 ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 100);
  return plain || 'Plan';
}

function externalIdOf(order: Record<string, unknown>): string | null {
  const id = order.customId ?? order.custom_id ?? order.externalId ?? order.external_id;
  return typeof id === 'string' ? id : null;
}

/** The built-in gateway: a page on this server with "Pagar" and "Cancelar". Demos and tests only. */
export class SandboxGateway implements Gateway {
  readonly name = 'sandbox' as const;

  /** `publicUrl`: PUBLIC_URL, if set; else the payment URL is relative and the browser opens it on the SPA's own origin. */
  constructor(private readonly publicUrl: string | undefined) {}

  async create(invoice: { id: string }): Promise<CreatedPayment> {
    return {
      paymentUrl: `${this.publicUrl ?? ''}/api/payments/sandbox/${invoice.id}`,
      transactionUuid: `sandbox-${invoice.id}`,
    };
  }

  async verify(): Promise<VerifiedPayment> {
    // The sandbox page itself confirms (it runs on this server); nothing to ask anyone.
    return { paid: false, transactionUuid: null, remoteId: null, amount: null, ownAccount: null };
  }
}
