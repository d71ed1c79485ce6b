/**
 * The manager console's catalogue: plans, rooms (Salas) and peers (`/api/admin/plans|partys|peers`).
 * Bodies validate with Spanish, field-specific messages; answers are presented shapes, never rows.
 */
import { z } from './zod.ts';
import { CONTROL_CHARS } from './common.ts';
import { msg } from './messages.ts';
import { ListQuery, Reason, paged } from './admin.ts';
import { ConcurrentUse, PeerSpeed, PeerUsage } from './peers.ts';
import { DataExhaustedAction, planSpeedShape } from './plans.ts';

/** Spanish texts of this area that server and console share. */
export const catalogMsg = {
  planNameRequired: 'El nombre del plan es obligatorio',
  planNameTooLong: 'El nombre del plan admite hasta 60 caracteres',
  planDescriptionTooLong: 'La descripción admite hasta 1000 caracteres',
  planPriceFormat: 'El precio debe ser un importe en USD con hasta 2 decimales, por ejemplo 5.00',
  planPricePositive: 'El precio debe ser mayor que 0',
  planPriceMax: 'El precio no puede superar 10000.00 USD',
  planValidity: 'La validez debe ser un número entero de días entre 1 y 3650',
  planSortOrder: 'El orden debe ser un número entero entre -100000 y 100000',
  planHidden: 'El plan debe indicar si está oculto (verdadero o falso)',
  planDataGb:
    'Los datos del plan deben ser un número de GB mayor que 0 y hasta 100000, con hasta 3 decimales, o vacío para datos ilimitados',
  planNoChanges: 'Indique al menos un campo del plan a cambiar',
  planSpeed:
    'La velocidad debe ser un número de Mbit/s mayor que 0 y hasta 10000, con hasta 3 decimales, o vacío para velocidad ilimitada',
  planReducedKbit: 'La velocidad reducida debe ser un número entero de kbit/s entre 8 y 100000',
  planGraceDays: 'La gracia tras el vencimiento debe ser un número entero de días entre 0 y 30',
  planExhaustedAction: 'Al agotar los datos, el plan debe cortar (cut) o reducir la velocidad (reduce)',
  planHasInvoices:
    'No se puede eliminar un plan con facturas: ocúltelo para que deje de ofrecerse y se conserve el historial.',
  planNotOnSale: 'Este plan ya no está a la venta. Por favor, elige otro plan.',
  peerStateInvalid: 'El estado debe ser active, disabled, expiring o concurrent_use',
  peerServerFilter: 'El servidor debe ser un número',
  peerPatchEmpty: 'Indique active, expires_at o una operación (grant, change_server)',
  peerPatchMixed: 'Una operación no se combina con active ni expires_at',
  peerGrantPlan: 'Seleccione el plan a conceder',
  peerGrantReason: 'Indique el motivo de la concesión (al menos 3 caracteres)',
  peerTargetServer: 'Seleccione el servidor de destino',
  peerExpiresAt: 'La fecha de expiración no es válida',
  roomReasonRequired: 'Indique el motivo de la eliminación (al menos 3 caracteres)',
} as const;

const int32 = z
  .number()
  .int()
  .positive()
  .max(2 ** 31 - 1);

/** A USD amount as text: '5', '5.5' or '5.00'; positive, at most 10000.00 and 2 decimals. */
export const PlanPrice = z
  .string({ message: catalogMsg.planPriceFormat })
  .trim()
  .regex(/^\d{1,5}(\.\d{1,2})?$/, { message: catalogMsg.planPriceFormat, abort: true })
  .refine((v) => Number(v) > 0, catalogMsg.planPricePositive)
  .refine((v) => Number(v) <= 10_000, catalogMsg.planPriceMax);

const planFields = {
  name: z
    .string({ message: catalogMsg.planNameRequired })
    .trim()
    .min(1, catalogMsg.planNameRequired)
    .max(60, catalogMsg.planNameTooLong)
    .refine((v) => !CONTROL_CHARS.test(v), { message: msg.nameControlChars }),
  description: z.string({ message: catalogMsg.planDescriptionTooLong }).trim().max(1000, {
    message: catalogMsg.planDescriptionTooLong,
  }),
  price: PlanPrice,
  validity_days: z
    .number({ message: catalogMsg.planValidity })
    .int(catalogMsg.planValidity)
    .min(1, catalogMsg.planValidity)
    .max(3650, catalogMsg.planValidity),
  hidden: z.boolean({ message: catalogMsg.planHidden }),
  /** GB (10^9 bytes) for the validity; null = unlimited. 0.001 GB = 1 MB is the smallest step. */
  data_gb: z
    .number({ message: catalogMsg.planDataGb })
    .positive(catalogMsg.planDataGb)
    .max(100_000, catalogMsg.planDataGb)
    .refine((v) => Math.abs(Math.round(v * 1000) - v * 1000) < 1e-6, catalogMsg.planDataGb)
    .nullable(),
  sort_order: z
    .number({ message: catalogMsg.planSortOrder })
    .int(catalogMsg.planSortOrder)
    .min(-100_000, catalogMsg.planSortOrder)
    .max(100_000, catalogMsg.planSortOrder),
  /** Issue 35: Mbit/s each way, null = unlimited; 0.001 Mbit/s = 1 kbit/s is the smallest step. */
  speed_down_mbit: planSpeed(),
  speed_up_mbit: planSpeed(),
  on_data_exhausted: z.enum(DataExhaustedAction.options, { message: catalogMsg.planExhaustedAction }),
  reduced_kbit: z
    .number({ message: catalogMsg.planReducedKbit })
    .int(catalogMsg.planReducedKbit)
    .min(8, catalogMsg.planReducedKbit)
    .max(100_000, catalogMsg.planReducedKbit),
  grace_days: z
    .number({ message: catalogMsg.planGraceDays })
    .int(catalogMsg.planGraceDays)
    .min(0, catalogMsg.planGraceDays)
    .max(30, catalogMsg.planGraceDays),
};

function planSpeed() {
  return z
    .number({ message: catalogMsg.planSpeed })
    .positive(catalogMsg.planSpeed)
    .max(10_000, catalogMsg.planSpeed)
    .refine((v) => Math.abs(Math.round(v * 1000) - v * 1000) < 1e-6, catalogMsg.planSpeed)
    .nullable();
}

/** POST /api/admin/plans. */
export const AdminPlanCreate = z
  .object({
    ...planFields,
    description: planFields.description.default(''),
    hidden: planFields.hidden.default(false),
    data_gb: planFields.data_gb.default(null),
    sort_order: planFields.sort_order.default(0),
    speed_down_mbit: planFields.speed_down_mbit.default(null),
    speed_up_mbit: planFields.speed_up_mbit.default(null),
    on_data_exhausted: planFields.on_data_exhausted.default('cut'),
    reduced_kbit: planFields.reduced_kbit.default(256),
    grace_days: planFields.grace_days.default(0),
  })
  .strict();
export type AdminPlanCreate = z.infer<typeof AdminPlanCreate>;

/** PATCH /api/admin/plans/{id}: only the fields sent change. */
export const AdminPlanPatch = z
  .object(planFields)
  .partial()
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: catalogMsg.planNoChanges });
export type AdminPlanPatch = z.infer<typeof AdminPlanPatch>;

/** A plan as the console sees it (`hidden` = not offered publicly). */
export const AdminPlan = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string(),
  /** USD with two decimals, as text ('5.00'). */
  price: z.string(),
  validity_days: z.number().int(),
  hidden: z.boolean(),
  /** GB for the validity, or null: unlimited. */
  data_gb: z.number().nullable(),
  sort_order: z.number().int(),
  ...planSpeedShape,
  /** Invoices that name the plan: a plan with any cannot be deleted. */
  invoices: z.number().int(),
  created: z.string(),
});
export type AdminPlan = z.infer<typeof AdminPlan>;
export const AdminPlanList = paged(AdminPlan);

/** Rooms. */
const Ref = z.object({ id: z.number().int(), name: z.string() });
const CustomerRef = z.object({ id: z.number().int(), username: z.string(), alias: z.string().nullable() });

export const AdminRoom = z.object({
  id: z.number().int(),
  name: z.string(),
  owner: CustomerRef,
  members: z.number().int(),
  servers: z.array(Ref),
  processing: z.boolean(),
  created: z.string(),
});
export type AdminRoom = z.infer<typeof AdminRoom>;
export const AdminRoomList = paged(AdminRoom);

export const AdminRoomMember = z.object({
  peer: Ref,
  customer: CustomerRef,
  private_ip: z.string(),
  server: Ref,
  joined: z.string().nullable(),
});
export const AdminRoomDetail = AdminRoom.extend({ peers: z.array(AdminRoomMember) });
export type AdminRoomDetail = z.infer<typeof AdminRoomDetail>;

export const AdminRoomDelete = z.object({
  reason: z.string({ message: catalogMsg.roomReasonRequired }).pipe(Reason),
});

/**
 * Peers. `active` = working now (switched on, not expired, owner enabled); `disabled` = the rest;
 * `expiring` = switched on, owner enabled, and expiring within the next 7 days; `concurrent_use` = in
 * use on more than one device (issue 19, "uso simultáneo").
 */
export const PEER_STATES = ['active', 'disabled', 'expiring', 'concurrent_use'] as const;
export const EXPIRING_DAYS = 7;

export const AdminPeerQuery = ListQuery.extend({
  server: z.coerce.number({ message: catalogMsg.peerServerFilter }).pipe(int32).optional(),
  state: z.enum(PEER_STATES, { message: catalogMsg.peerStateInvalid }).optional(),
});
export type AdminPeerQuery = z.infer<typeof AdminPeerQuery>;

export const AdminPeer = z.object({
  id: z.number().int(),
  name: z.string(),
  /** `disabled`: the customer's account is disabled, so none of their peers is on a server. */
  owner: z.object({ id: z.number().int(), username: z.string(), disabled: z.boolean() }),
  server: Ref,
  address: z.string(),
  public_key: z.string(),
  /** Switched on, not expired and its owner enabled (what the tunnel does now). */
  active: z.boolean(),
  /** The on/off switch itself (an expired peer may still be switched on). */
  enabled: z.boolean(),
  expires_at: z.string().nullable(),
  manual_payment: z.boolean(),
  party: Ref.nullable(),
  processing: z.string().nullable(),
  created: z.string(),
  /**
   * In use on more than one device (issue 19), or null: the customer's fields plus the last
   * alternation seen, the last two addresses truncated to /24 or /48, and the detections in 24 h.
   */
  concurrent_use: ConcurrentUse.extend({
    last_seen: z.string(),
    recent: z.array(z.string()),
    detections_24h: z.number().int(),
  }).nullable(),
  /** Its speed and whether it is reduced now (issue 35), as its owner sees it. */
  speed: PeerSpeed,
});
export type AdminPeer = z.infer<typeof AdminPeer>;
export const AdminPeerList = paged(AdminPeer);

export const AdminPlanHistoryEntry = z.object({
  plan_name: z.string(),
  plan_price: z.string(),
  validity_days: z.number().int(),
  created: z.string(),
  invoice_id: z.string().nullable(),
  manual: z.boolean(),
  reason: z.string().nullable(),
  granted_by: z.string().nullable(),
  /** When the invoice that paid it was refunded and its period taken back. */
  refunded: z.string().nullable(),
});
export type AdminPlanHistoryEntry = z.infer<typeof AdminPlanHistoryEntry>;

export const AdminPeerUsage = z.object({
  rx_bytes: z.number(),
  tx_bytes: z.number(),
  rx_bytes_30d: z.number(),
  tx_bytes_30d: z.number(),
  last_handshake: z.string().nullable(),
  endpoint: z.string().nullable(),
  /** A handshake within the last 3 minutes. */
  online: z.boolean(),
  /** The current period (since the last plan granted), from the customer's side. */
  period: PeerUsage.shape.period,
  /** The last 30 UTC days, oldest first (as the customer's PeerUsage). */
  days_from: z.string(),
  upload: z.array(z.number().int()),
  download: z.array(z.number().int()),
});

export const AdminPeerDetail = AdminPeer.extend({
  plans_history: z.array(AdminPlanHistoryEntry),
  usage: AdminPeerUsage,
});
export type AdminPeerDetail = z.infer<typeof AdminPeerDetail>;

/**
 * PATCH /api/admin/peers/{id}: either `active` / `expires_at` (with an optional reason), or one
 * operation — `grant` (plan + reason) or `change_server` (server).
 */
export const AdminPeerPatch = z
  .object({
    operation: z.enum(['grant', 'change_server']).optional(),
    active: z.boolean().optional(),
    expires_at: z.iso.datetime({ offset: true, message: catalogMsg.peerExpiresAt }).nullable().optional(),
    plan: z.number({ message: catalogMsg.peerGrantPlan }).pipe(int32).optional(),
    server: z.number({ message: catalogMsg.peerTargetServer }).pipe(int32).optional(),
    reason: z.string({ message: catalogMsg.peerGrantReason }).pipe(Reason).optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    const stateChange = b.active !== undefined || b.expires_at !== undefined;
    if (b.operation && stateChange)
      ctx.addIssue({ code: 'custom', path: ['operation'], message: catalogMsg.peerPatchMixed });
    else if (!b.operation && !stateChange)
      ctx.addIssue({ code: 'custom', path: [], message: catalogMsg.peerPatchEmpty });
    if (b.operation === 'grant') {
      if (b.plan === undefined)
        ctx.addIssue({ code: 'custom', path: ['plan'], message: catalogMsg.peerGrantPlan });
      if (b.reason === undefined)
        ctx.addIssue({ code: 'custom', path: ['reason'], message: catalogMsg.peerGrantReason });
    }
    if (b.operation === 'change_server' && b.server === undefined)
      ctx.addIssue({ code: 'custom', path: ['server'], message: catalogMsg.peerTargetServer });
  });
export type AdminPeerPatch = z.infer<typeof AdminPeerPatch>;
