/**
 * Payment gateways. Each creates a payment for an invoice (returning the URL the customer pays at).
 * Only a server-side answer credits an invoice (architecture decision 9): QvaPay is asked whether a
 * transaction was paid; Remesita, which documents no look-up, notifies a per-invoice secret URL
 * (its IPN). The browser's return only displays.
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
  /** The currency the gateway named, if it named one (an invoice is in USD: another never credits). */
  currency: string | null;
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
}

export interface Gateway {
  name: 'qvapay' | 'remesita' | 'sandbox';
  /**
   * No gateway is given a URL derived from the request (its Host can be forged): QvaPay's callback
   * and return URLs are set in the QvaPay app itself (README), the sandbox page is on this server.
   */
  create(invoice: NewPayment): Promise<CreatedPayment>;
  /** Asks the gateway about a payment; absent for a gateway that documents no look-up (Remesita). */
  verify?(invoice: InvoiceRef): Promise<VerifiedPayment>;
  /** Sends a paid invoice's money back; absent where the gateway offers no refund API. */
  refund?(payment: { reference: string; amount: number; reason: string }): Promise<{ id: string | null }>;
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
      currency: typeof data.currency === 'string' ? data.currency : null,
    };
  }
}

/**
 * Remesita through its REST API, as Remesita's own WooCommerce plugin uses it (docs/decisions.md,
 * "Remesita"): a token from api_key/api_secret, a payment link per invoice (business unit, amount,
 * concept, our invoice id as `customId`, IPN/success/cancel URLs) and refunds by payment reference.
 * Remesita documents no way to look a payment up: it is credited on its IPN alone, posted to a URL
 * that carries the invoice's own secret (InvoiceService.notifyRemesita checks everything else).
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
      /** REMESITA_SANDBOX: payment links in Remesita's sandbox (`"sandbox": true`), no real money. */
      sandbox?: boolean;
    },
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  /** Our business unit: an IPN naming another `app_id` pays someone else. */
  get businessId(): string {
    return this.cfg.businessId;
  }

  private async request(path: string, body: unknown, token?: string): Promise<Record<string, unknown>> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'content-type': 'application/json',
    };
    // As Remesita's own WooCommerce plugin sends it: the token itself, no scheme.
    if (token) headers.authorization = token;
    let res: Response;
    try {
      res = await this.fetchImpl(`${this.cfg.baseUrl}${path}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
    } catch (e) {
      throw new GatewayError(`Remesita no responde: ${(e as Error).message}`);
    }
    let data: unknown = null;
    try {
      data = await res.json();
    } catch {
      if (res.ok) throw new GatewayError('Remesita no respondió JSON');
    }
    const answer = (data && typeof data === 'object' ? data : {}) as Record<string, unknown>;
    if (!res.ok) {
      const said = typeof answer.error === 'string' ? `: ${answer.error.slice(0, 200)}` : '';
      throw new GatewayError(`Remesita respondió ${res.status}${said}`);
    }
    return answer;
  }

  private async token(): Promise<string> {
    const data = await this.request('/rest/v1/auth', {
      api_key: this.cfg.apiKey,
      api_secret: this.cfg.apiSecret,
    });
    const token = data.accessToken;
    if (typeof token !== 'string' || !token) throw new GatewayError('Remesita no devolvió un token');
    return token;
  }

  async create(invoice: NewPayment): Promise<CreatedPayment> {
    const token = await this.token();
    const back = `${this.cfg.publicUrl}/dashboard/payment?remote_id=${invoice.id}`;
    const data = await this.request(
      '/rest/v1/payment-link',
      {
        businessUnitId: this.cfg.businessId,
        amount: Number(invoice.amount.toFixed(2)),
        concept: plainConcept(invoice.description),
        customId: invoice.id,
        ipnUrl: `${this.cfg.publicUrl}/api/payments/remesita/ipn/${invoice.id}/${invoice.notifySecret}`,
        successUrl: `${back}&status=success`,
        cancelUrl: `${back}&status=canceled`,
        // The plugin sends the flag either way; we send it only to ask for the sandbox.
        ...(this.cfg.sandbox ? { sandbox: true } : {}),
      },
      token,
    );
    const link = data.link;
    if (typeof link !== 'string' || !/^https?:\/\//.test(link))
      throw new GatewayError('Remesita no devolvió un enlace de pago');
    // The payment's reference is known only from its IPN (`ref`).
    return { paymentUrl: link, transactionUuid: null };
  }

  /**
   * `POST /rest/v1/payment/refund {reference, amount, reason}`; Remesita answers `success` and the
   * refund's `id`, or an `error`. Anything but `success: true` refunded nothing.
   */
  async refund(payment: {
    reference: string;
    amount: number;
    reason: string;
  }): Promise<{ id: string | null }> {
    const token = await this.token();
    const data = await this.request(
      '/rest/v1/payment/refund',
      { reference: payment.reference, amount: Number(payment.amount.toFixed(2)), reason: payment.reason },
      token,
    );
    if (data.success !== true) {
      const why =
        typeof data.error === 'string' && data.error ? data.error.slice(0, 200) : 'respuesta sin éxito';
      throw new GatewayError(why);
    }
    const id = data.id;
    return { id: typeof id === 'string' || typeof id === 'number' ? String(id).slice(0, 100) : null };
  }
}

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
  // No verify: the sandbox page itself confirms (it runs on this server); nothing to ask anyone.
}
