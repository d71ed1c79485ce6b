/**
 * The manager console's shared contracts: roles, the permission matrix, and the list envelope every
 * admin list answers with. The matrix is written once, here, and read by the server (every admin
 * route declares the permission it needs), the SPA (navigation shows only what a role may use) and
 * nowhere else. What it must allow is docs/permissions.md, written for people: a test calls every
 * admin route as every role and expects what that page says, never what this matrix says.
 */
import { z } from './zod.ts';
import { NodeHealth } from './adminFleet.ts';

export const ROLES = ['owner', 'operations', 'support', 'finance'] as const;
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

/** Spanish names of the roles, as the console shows them. */
export const ROLE_LABELS: Record<Role, string> = {
  owner: 'Propietario',
  operations: 'Operaciones',
  support: 'Soporte',
  finance: 'Finanzas',
};

/** What a route may need. Each admin route declares exactly one. */
export const PERMISSIONS = [
  'overview.read', // Resumen: operational figures (every role)
  'revenue.read', // revenue figures and charts
  'customers.read',
  'customers.write', // disable / enable
  'customers.reset', // mail a password-reset link
  'plans.read',
  'plans.write',
  'peers.read',
  'peers.write', // switch on/off, expiry, grant a plan, change server, manual peers
  'invoices.read',
  'invoices.write', // mark paid
  'rooms.read',
  'rooms.write',
  'servers.read',
  'servers.write', // create, edit, drain, delete, rotate the agent token
  'content.write', // announcements and client-app versions
  'settings.read',
  'settings.public', // public switches (maintenance, registration, landing, rooms, e-mail…)
  'settings.gateways', // payment-gateway switches and credentials
  'managers.manage',
  'audit.read',
  'self', // the manager's own session and two-factor enrolment (every role)
] as const;
export const Permission = z.enum(PERMISSIONS);
export type Permission = z.infer<typeof Permission>;

const ALL = new Set<Permission>(PERMISSIONS);

/** The permission matrix: what each role may do. `owner` may do everything. */
export const ROLE_PERMISSIONS: Record<Role, ReadonlySet<Permission>> = {
  owner: ALL,
  operations: new Set<Permission>([
    'self',
    'overview.read',
    'peers.read',
    'peers.write',
    'rooms.read',
    'rooms.write',
    'servers.read',
    'servers.write',
    'content.write',
    'settings.read',
    'settings.public',
    'plans.read',
  ]),
  support: new Set<Permission>([
    'self',
    'overview.read',
    'customers.read',
    'customers.reset',
    'peers.read',
    'invoices.read',
    'rooms.read',
    'servers.read',
    'plans.read',
  ]),
  finance: new Set<Permission>([
    'self',
    'overview.read',
    'revenue.read',
    'plans.read',
    'plans.write',
    'invoices.read',
    'invoices.write',
    'customers.read',
  ]),
};

export function can(role: string, permission: Permission): boolean {
  return (
    (ROLE_PERMISSIONS as Record<string, ReadonlySet<Permission> | undefined>)[role]?.has(permission) ?? false
  );
}

/** `?q=&page=&page_size=` of every admin list (searched and paginated by the database). */
export const ListQuery = z.object({
  q: z.string().trim().max(100, 'La búsqueda admite hasta 100 caracteres').optional(),
  page: z.coerce
    .number({ message: 'La página debe ser un número' })
    .int('La página debe ser un número entero')
    .min(1, 'La página empieza en 1')
    .max(100_000, 'Página fuera de rango')
    .default(1),
  page_size: z.coerce
    .number({ message: 'El tamaño de página debe ser un número' })
    .int('El tamaño de página debe ser un número entero')
    .min(1, 'El tamaño de página debe estar entre 1 y 100')
    .max(100, 'El tamaño de página debe estar entre 1 y 100')
    .default(25),
});
export type ListQuery = z.infer<typeof ListQuery>;

/** `{ count, results }`: the answer of every admin list. */
export const paged = <T extends z.ZodTypeAny>(item: T) =>
  z.object({ count: z.number().int(), results: z.array(item) });
export interface Paged<T> {
  count: number;
  results: T[];
}

/** `{ id }` path parameter of every admin resource (a positive 32-bit id). */
export const IdParams = z.object({
  id: z.coerce
    .number({ message: 'El identificador debe ser un número' })
    .int('El identificador debe ser un número entero')
    .positive('El identificador debe ser positivo')
    .max(2 ** 31 - 1, 'Identificador fuera de rango'),
});

/** A reason, where an action records one (grant a plan, mark paid, disable…). */
export const Reason = z
  .string({ message: 'Indique el motivo' })
  .trim()
  .min(3, 'Indique el motivo (al menos 3 caracteres)')
  .max(300, 'El motivo admite hasta 300 caracteres');

/**
 * Live pushes of the manager console on `/ws` (manager token). They carry ids, not records: the
 * console re-reads what it shows (so a push never leaks a field a role may not see, and stays far
 * below pg_notify's 8,000-byte limit). Each reaches only managers whose role has `permission`.
 */
export const AdminPush = z.discriminatedUnion('type', [
  /** A server's agent connected, disconnected, acked, or the server was edited / drained. */
  z.object({ type: z.literal('admin_server'), server_id: z.number().int() }),
  /**
   * A server's node health after its agent's stats pass (issue 34), every stats interval per
   * server: the one push that carries its record, so consoles update in place instead of
   * re-reading the fleet every 10 s per server. Nothing in it is beyond `servers.read`; ~300 bytes.
   */
  z.object({ type: z.literal('admin_server_health'), server_id: z.number().int(), health: NodeHealth }),
  /** An invoice was created or changed state. */
  z.object({ type: z.literal('admin_invoice'), invoice_id: z.string(), status: z.string() }),
  /**
   * Money a gateway reported that credited nothing ("Pagos sin factura abierta") was recorded, or an
   * operator settled one: for the roles that read revenue (`revenue.read`).
   */
  z.object({ type: z.literal('admin_payment'), payment_id: z.number().int() }),
  /** A new audit entry. */
  z.object({ type: z.literal('admin_audit'), entry_id: z.number().int() }),
  /** Progress of a server drain. */
  z.object({
    type: z.literal('admin_drain'),
    server_id: z.number().int(),
    moved: z.number().int(),
    total: z.number().int(),
    done: z.boolean(),
  }),
]);
export type AdminPush = z.infer<typeof AdminPush>;
