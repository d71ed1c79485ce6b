/**
 * Manager console — Facturas' money side (issue 15): refunds, the revenue table, the CSV export and
 * the payments that arrived without an open invoice. Owner and finance only.
 */
import { z } from './zod.ts';
import { ListQuery, Reason, paged } from './admin.ts';

/**
 * `POST /api/admin/invoices/{id}/refund`. `gateway`: the gateway sends the money back itself
 * (Remesita's refund API); `manual`: the money went back another way and is only recorded. Either way
 * the plan period the invoice bought is taken back from its peer.
 */
export const InvoiceRefund = z
  .object({
    method: z.enum(['gateway', 'manual'], { message: 'El método debe ser gateway o manual' }),
    reason: Reason,
  })
  .strict();
export type InvoiceRefund = z.infer<typeof InvoiceRefund>;

/** One month and gateway of the revenue table: USD decimal strings (2 decimals). */
export const RevenueRow = z.object({
  /** `YYYY-MM`, UTC. */
  month: z.string(),
  gateway: z.string(),
  paid: z.string(),
  refunded: z.string(),
  net: z.string(),
  paid_count: z.number().int(),
  refunded_count: z.number().int(),
});
export type RevenueRow = z.infer<typeof RevenueRow>;

/** `GET /api/admin/invoices/revenue?months=`: newest month first, plus the totals of those rows. */
export const RevenueQuery = z.object({
  months: z.coerce
    .number({ message: 'Los meses deben ser un número' })
    .int('Los meses deben ser un número entero')
    .min(1, 'Entre 1 y 120 meses')
    .max(120, 'Entre 1 y 120 meses')
    .default(12),
});
export const RevenueTable = z.object({
  currency: z.literal('USD'),
  rows: z.array(RevenueRow),
  totals: z.object({ paid: z.string(), refunded: z.string(), net: z.string() }),
});
export type RevenueTable = z.infer<typeof RevenueTable>;

/** A gateway payment that credited nothing ("pago sin factura abierta"). */
export const UnmatchedPayment = z.object({
  id: z.number().int(),
  gateway: z.string(),
  /** The gateway's own reference of the payment. */
  reference: z.string(),
  invoice_id: z.string().nullable(),
  amount: z.string().nullable(),
  currency: z.string().nullable(),
  gateway_status: z.string(),
  reason: z.string().nullable(),
  created: z.string(),
  resolved: z.string().nullable(),
});
export type UnmatchedPayment = z.infer<typeof UnmatchedPayment>;
export const UnmatchedPaymentQuery = ListQuery.extend({
  resolved: z.enum(['true', 'false'], { message: 'resolved debe ser true o false' }).optional(),
});
export type UnmatchedPaymentQuery = z.infer<typeof UnmatchedPaymentQuery>;
export const UnmatchedPaymentPage = paged(UnmatchedPayment);
/** `PATCH /api/admin/payments/unmatched/{id}`: the operator settled it (with a reason). */
export const UnmatchedPaymentPatch = z.object({ resolved: z.literal(true), reason: Reason }).strict();

export const billingMsg = {
  refundNotPaid: 'Solo se puede reembolsar una factura pagada',
  refundInProgress: 'Ya hay un reembolso en curso para esta factura',
  refundGatewayUnsupported:
    'Esta pasarela no permite reembolsar desde aquí: devuelva el dinero por otra vía y regístrelo a mano',
  refundNoReference: 'La factura no tiene la referencia del pago en la pasarela: regístrelo a mano',
  refundGatewayFailed: 'La pasarela no hizo el reembolso: {reason}',
  refunded: 'Factura reembolsada: el periodo que compró se retiró del peer',
  refundedCannotMark: 'La factura está reembolsada: no se puede marcar como pagada',
  unmatchedNotFound: 'Pago no encontrado',
  unmatchedResolved: 'El pago ya estaba resuelto',
  /** Reasons shown to the operator for money that credited nothing. */
  noticeInvoiceClosed: 'Pago sin factura abierta: la factura estaba {status} y el importe no la cubre',
  noticeAlreadyPaid: 'Pago sin factura abierta: la factura ya estaba pagada con otro pago ({reference})',
  noticeAmountLow: 'El importe pagado ({amount}) no cubre la factura ({price})',
  noticeRefunded: 'Pago sin factura abierta: la factura estaba reembolsada',
} as const;
