import { z } from 'zod';

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
      z.string().max(100),
    ])
    .optional(),
  plan: z.coerce
    .number()
    .int()
    .positive()
    .max(2 ** 31 - 1),
});
export type InvoiceBody = z.infer<typeof InvoiceBody>;

export const InvoiceCreated = z.object({ id: z.string(), payment_url: z.string() });

export const InvoiceStatus = z.enum(['pending', 'paid', 'canceled', 'expired', 'failed']);

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
});
export type Invoice = z.infer<typeof Invoice>;

/** General settings the purchase UI reads. */
export const PaymentSettings = z.object({
  allow_payments_qvapay: z.boolean(),
  allow_payments_remesita: z.boolean(),
  sandbox: z.boolean(),
});
