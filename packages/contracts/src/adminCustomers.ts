/**
 * Manager console — Clientes and Facturas: the shapes of `/api/admin/customers*` and
 * `/api/admin/invoices*` (server validation, OpenAPI and the SPA read these).
 */
import { z } from './zod.ts';
import { IdParams, ListQuery, Reason, paged } from './admin.ts';
import { InvoiceStatus } from './invoices.ts';

export const CustomerIdParams = IdParams;

// ---------------------------------------------------------------------------------------------
// Customers

export const CUSTOMER_STATES = ['active', 'disabled'] as const;

/** `GET /api/admin/customers?q=&state=&page=&page_size=`: q searches username, e-mail and alias. */
export const CustomerListQuery = ListQuery.extend({
  state: z.enum(CUSTOMER_STATES, { message: 'El estado debe ser active o disabled' }).optional(),
});
export type CustomerListQuery = z.infer<typeof CustomerListQuery>;

export const AdminCustomer = z.object({
  id: z.number().int(),
  username: z.string(),
  email: z.string().nullable(),
  email_verified: z.boolean(),
  alias: z.string().nullable(),
  disabled: z.boolean(),
  created: z.string(),
  /** How many peers the customer has, and how many of them are live (active and not expired). */
  peers: z.number().int(),
  live_peers: z.number().int(),
});
export type AdminCustomer = z.infer<typeof AdminCustomer>;
export const AdminCustomerPage = paged(AdminCustomer);

export const AdminCustomerPeer = z.object({
  id: z.number().int(),
  name: z.string(),
  address: z.string(),
  server: z.object({ id: z.number().int(), name: z.string() }),
  /** The peer's own switch (a manager's or the expiry scheduler's). */
  active: z.boolean(),
  /** Whether it is on its VPN server now: active, not expired and its owner not disabled. */
  live: z.boolean(),
  expires_at: z.string().nullable(),
  party: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  created: z.string(),
});

export const AdminCustomerRoom = z.object({
  id: z.number().int(),
  name: z.string(),
  /** owner: the customer created it; member: one of their peers is in it. */
  role: z.enum(['owner', 'member']),
  members: z.number().int(),
});

/** An open session: a refresh-token family neither revoked nor expired (never the token itself). */
export const AdminCustomerSession = z.object({
  id: z.string(),
  started: z.string(),
  last_used: z.string(),
  expires_at: z.string(),
  remember: z.boolean(),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
});

/** `PATCH /api/admin/customers/{id}`. */
export const CustomerPatch = z
  .object({
    disabled: z.boolean({ message: 'Indique si la cuenta queda deshabilitada (disabled)' }),
    reason: Reason.optional(),
  })
  .strict();
export type CustomerPatch = z.infer<typeof CustomerPatch>;

// ---------------------------------------------------------------------------------------------
// Invoices

/** `GET /api/admin/invoices?q=&state=&gateway=&page=&page_size=`: q searches username, peer name, remote id. */
export const InvoiceListQuery = ListQuery.extend({
  state: z
    .enum(InvoiceStatus.options, {
      message: 'El estado debe ser pending, paid, canceled, expired, failed o refunded',
    })
    .optional(),
  gateway: z
    .string()
    .trim()
    .regex(/^[a-z0-9_-]{1,20}$/, 'Pasarela no válida')
    .optional(),
  customer: IdParams.shape.id.optional(),
});
export type InvoiceListQuery = z.infer<typeof InvoiceListQuery>;

export const AdminInvoice = z.object({
  id: z.string(),
  customer: z.object({ id: z.number().int(), username: z.string() }),
  operation: z.enum(['add_plan', 'new_peer']),
  /** The peer it extended or created (null until a new_peer invoice is delivered). */
  peer: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  new_peer_name: z.string().nullable(),
  plan_name: z.string(),
  /** USD decimal string, e.g. "3.50". */
  amount: z.string(),
  currency: z.string(),
  gateway: z.string(),
  status: InvoiceStatus,
  remote_id: z.string().nullable(),
  transaction_uuid: z.string().nullable(),
  created: z.string(),
  paid: z.string().nullable(),
  /** When what it bought was delivered (peer created or plan added). */
  delivered: z.string().nullable(),
  /** Marked paid by hand: by whom and why. */
  marked_by: z.object({ id: z.number().int(), username: z.string() }).nullable(),
  mark_reason: z.string().nullable(),
  /** Refunded: when, by whom, why, and the gateway's refund id (null when recorded by hand). */
  refunded: z.string().nullable(),
  refunded_by: z.object({ id: z.number().int(), username: z.string() }).nullable(),
  refund_reason: z.string().nullable(),
  refund_reference: z.string().nullable(),
  /** The gateway can send this invoice's money back itself (a paid Remesita invoice with its reference). */
  refundable_by_gateway: z.boolean(),
});
export type AdminInvoice = z.infer<typeof AdminInvoice>;
export const AdminInvoicePage = paged(AdminInvoice);

export const AdminCustomerDetail = AdminCustomer.extend({
  peer_list: z.array(AdminCustomerPeer),
  /** The newest invoices (up to 50); `invoice_count` says how many there are. */
  invoices: z.array(AdminInvoice),
  invoice_count: z.number().int(),
  rooms: z.array(AdminCustomerRoom),
  sessions: z.array(AdminCustomerSession),
});
export type AdminCustomerDetail = z.infer<typeof AdminCustomerDetail>;

/** `PATCH /api/admin/invoices/{id}`: credit a payment received outside the gateway (bank transfer…). */
export const InvoicePatch = z
  .object({
    operation: z.literal('mark_paid', { message: 'La operación debe ser mark_paid' }),
    reason: Reason,
  })
  .strict();
export type InvoicePatch = z.infer<typeof InvoicePatch>;

/** Spanish answers of this slice (kept here, not in messages.ts, which every slice edits). */
export const customersMsg = {
  /** What a disabled customer reads when they try to sign in. */
  loginDisabled: 'Tu cuenta está deshabilitada. Contacta con soporte.',
  customerDisabled: 'Cliente deshabilitado: sus sesiones se cerraron y sus peers salieron de los servidores',
  customerEnabled: 'Cliente habilitado: sus peers activos vuelven a sus servidores',
  customerAlreadyDisabled: 'El cliente ya está deshabilitado',
  customerAlreadyEnabled: 'El cliente ya está habilitado',
  reasonRequired: 'Indique el motivo para deshabilitar la cuenta',
  resetMailOff: 'El correo está desactivado en este servidor (falta SMTP_URL): no se puede enviar el enlace',
  resetNoEmail: 'El cliente no tiene un email verificado: no se le puede enviar el enlace',
  resetDisabled: 'La cuenta está deshabilitada: habilítela antes de enviar el enlace',
  resetSendFailed: 'No se pudo enviar el correo. Inténtelo de nuevo más tarde.',
  resetSent: 'Enlace de restablecimiento enviado a {email}',
  invoiceAlreadyPaid: 'La factura ya está pagada',
  invoiceMarkedPaid: 'Factura marcada como pagada',
} as const;
