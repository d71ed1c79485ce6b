/**
 * Manager console, fleet slice (issue 7): servers (edit, drain, delete, install command), the
 * metrics behind the Resumen charts, and the payment gateways' credentials in Ajustes.
 */
import { z } from './zod.ts';
import { noControlChars } from './common.ts';

/** Spanish answers of the fleet routes (the console shows them as they are). */
export const fleetMsg = {
  serverHasPeers: (n: number) =>
    `No se puede eliminar un servidor con peers (${n}). Drénelo antes para moverlos a otros servidores.`,
  drainNoTarget: 'No hay otro servidor activo al que mover los peers. Cree o active otro servidor antes.',
  drainNoRoomTarget: (n: number) =>
    `${n} peer(s) están en salas y ningún otro servidor activo permite salas. Permita salas en otro servidor antes de drenar.`,
  drainRunning: 'Este servidor ya se está drenando.',
  drainBusyLeft: (n: number) =>
    `Quedan ${n} peer(s) ocupados con otra operación. Vuelva a drenar el servidor en unos minutos.`,
  roomsInUse: (rooms: string) =>
    `No se pueden desactivar las salas: hay peers de este servidor en las salas ${rooms}. Muévalos o elimine esas salas antes.`,
  hostInvalid: 'El host debe ser un nombre o una dirección IP',
  portInvalid: 'El puerto debe estar entre 1 y 65535',
  nameRequired: 'El nombre del servidor es obligatorio',
  nothingToChange: 'No se indicó ningún cambio',
  rangeInvalid: 'Las fechas deben tener la forma AAAA-MM-DD',
  rangeOrder: 'La fecha inicial debe ser anterior o igual a la final',
  rangeTooLong: 'El intervalo admite como máximo 366 días',
  credentialRequired: 'Complete todos los datos de la pasarela o ninguno',
} as const;

/** Host clients dial: a DNS name or an IPv4/IPv6 address (no port, no brackets). */
const Host = z
  .string()
  .trim()
  .min(1, fleetMsg.hostInvalid)
  .max(253, fleetMsg.hostInvalid)
  .regex(
    /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?|[0-9a-fA-F:]*:[0-9a-fA-F:.]+)$/,
    fleetMsg.hostInvalid,
  );

export const ServerPatch = z
  .object({
    name: noControlChars(
      z.string().trim().min(1, fleetMsg.nameRequired).max(60, 'El nombre admite hasta 60 caracteres'),
    ),
    host: Host,
    port: z
      .number({ message: fleetMsg.portInvalid })
      .int(fleetMsg.portInvalid)
      .min(1, fleetMsg.portInvalid)
      .max(65535, fleetMsg.portInvalid),
    ubication: z.string().trim().max(120, 'La ubicación admite hasta 120 caracteres'),
    active: z.boolean(),
    allow_partys: z.boolean(),
    /** Game discovery in rooms on this server (issue 25); the site's `allow_discovery` still rules. */
    allow_discovery: z.boolean(),
  })
  .partial()
  .strict();
export type ServerPatch = z.infer<typeof ServerPatch>;

/**
 * A node's health as its agent last reported it with its stats (issue 34; agent.ts AgentNodeHealth):
 * `at`, when the report came (ISO); the interface's peers, handshakes in the last 3 minutes, summed
 * counters and bytes per second in (from the peers) and out (to them); the host's load averages,
 * CPU percent and memory in bytes. Nulls where the agent could not read them.
 */
export const NodeHealth = z.object({
  at: z.string(),
  peers: z.number().int(),
  handshakes_3m: z.number().int(),
  rx_bytes: z.number(),
  tx_bytes: z.number(),
  rx_rate: z.number().nullable(),
  tx_rate: z.number().nullable(),
  /** 1, 5 and 15 minutes. */
  load: z.array(z.number()).max(3).nullable(),
  cpu: z.number().nullable(),
  memory: z.object({ total: z.number(), available: z.number() }).nullable(),
});
export type NodeHealth = z.infer<typeof NodeHealth>;

/** A server as the console lists it. */
export const AdminServer = z.object({
  id: z.number().int(),
  name: z.string(),
  host: z.string(),
  port: z.number().int(),
  endpoint: z.string(),
  ubication: z.string(),
  active: z.boolean(),
  allow_partys: z.boolean(),
  allow_discovery: z.boolean(),
  /**
   * The discovery relay as the server's agent last reported it (issue 25): `active`, its rules are
   * in place (null: the agent never reported, e.g. an agent older than the relay); datagrams
   * relayed to rooms and dropped by the limits since the agent started. `error` (issue 31): why the
   * agent could not put the rules in place (nft's reason), null when it could; peers are applied
   * anyway and the agent tries the relay again.
   */
  relay: z.object({
    active: z.boolean().nullable(),
    relayed: z.number().int(),
    dropped: z.number().int(),
    reported_at: z.string().nullable(),
    error: z.string().nullable(),
  }),
  dns: z.string(),
  mtu: z.number().int(),
  interface_name: z.string(),
  public_key: z.string(),
  agent_online: z.boolean(),
  agent_version: z.string().nullable(),
  /** Node.js the agent runs on (from its hello; null for agents older than 0.2.0). */
  agent_node_version: z.string().nullable(),
  /** The agent is older than the file this panel serves ("desactualizado"). */
  agent_outdated: z.boolean(),
  /** The last "Actualizar agente", until the agent comes back upgraded (then null). */
  agent_upgrade: z
    .object({
      status: z.enum(['pending', 'restarting', 'failed']),
      version: z.string().nullable(),
      error: z.string().nullable(),
      at: z.string().nullable(),
    })
    .nullable(),
  last_seen_at: z.string().nullable(),
  /**
   * Offline agent: since when (its connection closed, or it was last heard of); null while online
   * or when it never connected (issue 34: "Sin conexión desde hace 12 min").
   */
  offline_since: z.string().nullable(),
  /** The node's last health report (issue 34); null before its agent sent one. */
  health: NodeHealth.nullable(),
  revision: z.number().int(),
  acked_revision: z.number().int(),
  peers: z.number().int(),
});
export type AdminServer = z.infer<typeof AdminServer>;

/** Progress of a drain (persisted: any instance answers it). */
export const DrainProgress = z.object({
  moved: z.number().int(),
  total: z.number().int(),
  done: z.boolean(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  error: z.string().nullable(),
});
export type DrainProgress = z.infer<typeof DrainProgress>;

export const AdminServerDetail = AdminServer.extend({
  /** The agent version this panel serves (install line and "Actualizar agente"); null: not built. */
  agent_latest_version: z.string().nullable(),
  /** Desired-state revisions the agent has not applied yet. */
  revision_lag: z.number().int(),
  online_peers: z.number().int(),
  drain: DrainProgress.nullable(),
});
export type AdminServerDetail = z.infer<typeof AdminServerDetail>;

/** A peer as a server's detail panel lists it. */
export const ServerPeer = z.object({
  id: z.number().int(),
  name: z.string(),
  customer: z.string(),
  address: z.string(),
  active: z.boolean(),
  expires_at: z.string().nullable(),
  party: z.string().nullable(),
  online: z.boolean(),
});
export type ServerPeer = z.infer<typeof ServerPeer>;

/** Creating a server or rotating its token: the token and the command, shown this once. */
export const AgentInstall = z.object({
  agent_token: z.string(),
  install_command: z.string(),
});
export type AgentInstall = z.infer<typeof AgentInstall>;

const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, fleetMsg.rangeInvalid);

export const MetricsRange = z.object({ from: Day.optional(), to: Day.optional() });

/**
 * Daily series over [from, to] (UTC days), each array aligned with `days`. `revenue_usd` only for
 * roles with `revenue.read`.
 */
export const MetricsSeries = z.object({
  from: z.string(),
  to: z.string(),
  days: z.array(z.string()),
  revenue_usd: z.array(z.number()).optional(),
  new_customers: z.array(z.number().int()),
  active_peers: z.array(z.number().int()),
  servers: z.array(
    z.object({
      id: z.number().int(),
      name: z.string(),
      agent_online: z.boolean(),
      /**
       * Since when its agent has been away (issue 34: the charts shade that outage up to now); null
       * while online or never connected. Absent from answers before it existed.
       */
      offline_since: z.string().nullable().optional(),
      /**
       * Its agent's outages overlapping the range, oldest first (ISO times; `to` null while
       * ongoing): the charts shade each. Absent from answers before it existed.
       */
      outages: z.array(z.object({ from: z.string(), to: z.string().nullable() })).optional(),
      peers: z.number().int(),
      online_peers: z.number().int(),
      rx_bytes: z.array(z.number()),
      tx_bytes: z.array(z.number()),
    }),
  ),
});
export type MetricsSeries = z.infer<typeof MetricsSeries>;

/** Headline figures; the revenue ones only for roles with `revenue.read`. */
export const AdminMetrics = z.object({
  customers: z.number().int(),
  peers: z.number().int(),
  active_peers: z.number().int(),
  servers: z.number().int(),
  servers_online: z.number().int(),
  invoices_paid_30d: z.number().int().optional(),
  revenue_usd_30d: z.number().optional(),
  /** Peers flagged in use on more than one device now (issue 19). */
  concurrent_use_peers: z.number().int(),
});
export type AdminMetrics = z.infer<typeof AdminMetrics>;

/** Where a gateway's credentials come from: Ajustes (stored encrypted), the environment, or nowhere. */
export const CredentialSource = z.enum(['console', 'env', 'none']);
export type CredentialSource = z.infer<typeof CredentialSource>;

/** Ajustes → pasarelas: switches and whether credentials are set (never the credentials). */
export const GatewaySettings = z.object({
  allow_payments_qvapay: z.boolean(),
  allow_payments_remesita: z.boolean(),
  qvapay: z.object({ configured: z.boolean(), source: CredentialSource }),
  remesita: z.object({ configured: z.boolean(), source: CredentialSource }),
});
export type GatewaySettings = z.infer<typeof GatewaySettings>;

const secret = (label: string) =>
  z
    .string({ message: `Indique ${label}` })
    .trim()
    .min(1, `Indique ${label}`)
    .max(500, `${label} admite hasta 500 caracteres`);

export const QvapayCredentials = z.object({
  app_id: secret('el App ID'),
  app_secret: secret('el App Secret'),
});
export type QvapayCredentials = z.infer<typeof QvapayCredentials>;

/** Remesita's REST API (issue 9): api key / secret for the token, and the business unit id. */
export const RemesitaCredentials = z.object({
  api_key: secret('la API key'),
  api_secret: secret('el API secret'),
  business_id: secret('el ID de la unidad de negocio'),
  /** Another API base than REMESITA_BASE_URL (a test or staging server); empty: the environment's. */
  base_url: z
    .string()
    .trim()
    .max(300, 'La URL admite hasta 300 caracteres')
    .regex(/^https?:\/\/[^\s/?#]+[^\s?#]*$/, 'La URL de la API debe empezar por https:// o http://')
    .optional(),
});
export type RemesitaCredentials = z.infer<typeof RemesitaCredentials>;

/** A change of gateways: switches, and credentials to store (`null` forgets them: back to the environment). */
export const GatewayPatch = z
  .object({
    allow_payments_qvapay: z.boolean(),
    allow_payments_remesita: z.boolean(),
    qvapay: QvapayCredentials.strict().nullable(),
    remesita: RemesitaCredentials.strict().nullable(),
  })
  .partial()
  .strict();
export type GatewayPatch = z.infer<typeof GatewayPatch>;
