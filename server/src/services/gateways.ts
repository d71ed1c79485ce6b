/**
 * Payment gateways. Each creates a payment for an invoice (returning the URL the customer pays at)
 * and can say, server to server, whether a transaction was paid. Only that server-side answer
 * credits an invoice (architecture decision 9); the browser's return only displays.
 */
export interface CreatedPayment {
  paymentUrl: string;
  transactionUuid: string | null;
}

export interface VerifiedPayment {
  paid: boolean;
  remoteId: string | null;
  amount: number | null;
}

export interface Gateway {
  name: 'qvapay' | 'sandbox';
  create(
    invoice: { id: string; amount: number; description: string },
    origin: string,
  ): Promise<CreatedPayment>;
  verify(transactionUuid: string): Promise<VerifiedPayment>;
}

export class GatewayError extends Error {}

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

  async create(invoice: { id: string; amount: number; description: string }): Promise<CreatedPayment> {
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
    return { paymentUrl: url, transactionUuid: typeof uuid === 'string' ? uuid : null };
  }

  async verify(transactionUuid: string): Promise<VerifiedPayment> {
    const data = await this.call(`transaction/${encodeURIComponent(transactionUuid)}`, {});
    return {
      paid: String(data.status).toLowerCase() === 'paid',
      remoteId: typeof data.remote_id === 'string' ? data.remote_id : null,
      amount: data.amount === undefined ? null : Number(data.amount),
    };
  }
}

/** The built-in gateway: a page on this server with "Pagar" and "Cancelar". Demos and tests only. */
export class SandboxGateway implements Gateway {
  readonly name = 'sandbox' as const;

  async create(invoice: { id: string }, origin: string): Promise<CreatedPayment> {
    return {
      paymentUrl: `${origin}/api/payments/sandbox/${invoice.id}`,
      transactionUuid: `sandbox-${invoice.id}`,
    };
  }

  async verify(): Promise<VerifiedPayment> {
    // The sandbox page itself confirms (it runs on this server); nothing to ask anyone.
    return { paid: false, remoteId: null, amount: null };
  }
}
