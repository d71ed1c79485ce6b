import { z } from './zod.ts';
import { noControlChars } from './common.ts';

/** PUT /api/client/invoices: buy a plan for an existing peer (add_plan) or a new one (new_peer). */
export const InvoiceBody = z.object({
  operation: z.enum(['add_plan', 'new_peer']),
  /** The peer's id for add_plan, the new peer's name for new_peer. */
  peer: z
    .union([
      z
        .number()
        .int()
        .positive()
        .max(2 ** 31 - 1),
      noControlChars(z.string().max(100)),
    ])
    .optional(),
  /** Which gateway pays (with both on the customer chooses); absent: the first available. */
  gateway: z.enum(['qvapay', 'remesita']).optional(),
  plan: z.coerce
    .number()
    .int()
    .positive()
    .max(2 ** 31 - 1),
});
export type InvoiceBody = z.infer<typeof InvoiceBody>;

export const InvoiceCreated = z.object({ id: z.string(), payment_url: z.string() });

/** `refunded`: paid, then the money went back (through the gateway or by hand) and its period was taken back. */
export const InvoiceStatus = z.enum(['pending', 'paid', 'canceled', 'expired', 'failed', 'refunded']);

/** GET /api/client/invoices/{id} (id = the remote_id the gateway echoes back). */
export const Invoice = z.object({
  id: z.string(),
  plan_name: z.string(),
  peer_name: z.string(),
  amount: z.number(),
  currency: z.string(),
  status: InvoiceStatus,
  gateway: z.string(),
  transaction_uuid: z.string().nullable(),
  created: z.string(),
  paid: z.string().nullable(),
  /**
   * What was bought is in place (the new peer created, or the plan added). A `paid` invoice with
   * `delivered: false` is waiting for delivery (e.g. no server available): the server retries on its
   * own, and the owner gets `created_peer` / `updated_peer` when it is done.
   */
  delivered: z.boolean(),
  /** What it buys: a plan for an existing peer, or a new one. */
  operation: z.enum(['add_plan', 'new_peer']),
  /**
   * The peer it extended or created: the payment result opens it ready to install. Null until a
   * new_peer invoice is delivered.
   */
  peer_id: z.number().int().nullable(),
  /**
   * Why a payment the gateway reported did not credit this invoice (another invoice's payment, a
   * smaller amount, the gateway unreachable…), in Spanish for the customer; absent when nothing is wrong.
   */
  message: z.string().optional(),
});
export type Invoice = z.infer<typeof Invoice>;

/** General settings the purchase UI reads. */
export const PaymentSettings = z.object({
  allow_payments_qvapay: z.boolean(),
  allow_payments_remesita: z.boolean(),
  sandbox: z.boolean(),
  /**
   * Some server can take a new peer now (switched on, its agent answering). False: the purchase
   * dialog says so before payment, and a new_peer invoice is refused (`msg.noServersOnline`).
   */
  new_peer_available: z.boolean(),
});
