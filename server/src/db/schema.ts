/**
 * The whole data model, for every part of the product (later issues add behaviour, not tables).
 * One SQL dialect: the same pg-core schema and migrations serve PGlite and PostgreSQL.
 * Over 400 lines by design: every table, index and constraint is read in one place, and drizzle-kit
 * generates the migrations from this one file.
 */
import { sql } from 'drizzle-orm';
import type { AgentNodeHealth } from '@vpn/contracts';
/** A room change recorded for one server (services/fleet/roomDelta.ts builds and reads it). */
export interface RoomChangeRecord {
  /** Pairs allowed from now on, and no longer allowed: `[source, destination]`. */
  add: [string, string][];
  remove: [string, string][];
  /** Rooms whose relay entry on this server is to be re-sent (or removed when none is left). */
  rooms: number[];
  /** Other servers whose mesh link from this one is to be re-sent (or removed when unused). */
  mesh: number[];
}
import {
  bigint,
  bigserial,
  boolean,
  check,
  index,
  inet,
  integer,
  interval,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const created = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

export const customers = pgTable(
  'customers',
  {
    id: serial('id').primaryKey(),
    username: text('username').notNull(),
    passwordHash: text('password_hash').notNull(),
    /** Public name inside rooms; unique (case-insensitive) when set. */
    alias: text('alias'),
    email: text('email'),
    emailVerified: boolean('email_verified').notNull().default(false),
    active: boolean('active').notNull().default(true),
    /** Sessions issued before this instant are void (password change, manager action). */
    sessionsValidAfter: timestamp('sessions_valid_after', { withTimezone: true }),
    createdAt: created(),
  },
  (t) => [
    uniqueIndex('customers_username_lower').on(sql`lower(${t.username})`),
    uniqueIndex('customers_alias_lower').on(sql`lower(${t.alias})`),
    uniqueIndex('customers_email_lower').on(sql`lower(${t.email})`),
    index('customers_created').on(t.createdAt),
    // Disabled accounts (a manager's switch, few): whether a peer is live asks this small index
    // instead of the customer's row (services/fleet/desiredState.ts peerIsLive, migration 0042).
    index('customers_disabled')
      .on(t.id)
      .where(sql`not ${t.active}`),
    // Admin search (`ILIKE '%q%'` on lower()) stays an index scan at 50,000 customers.
    index('customers_username_trgm').using('gin', sql`lower(${t.username}) gin_trgm_ops`),
    index('customers_email_trgm').using('gin', sql`lower(${t.email}) gin_trgm_ops`),
    index('customers_alias_trgm').using('gin', sql`lower(${t.alias}) gin_trgm_ops`),
  ],
);

export const managers = pgTable(
  'managers',
  {
    id: serial('id').primaryKey(),
    username: text('username').notNull(),
    passwordHash: text('password_hash').notNull(),
    /** owner | operations | support | finance: the permission matrix's roles (contracts/admin.ts). */
    role: text('role').notNull().default('support'),
    active: boolean('active').notNull().default(true),
    sessionsValidAfter: timestamp('sessions_valid_after', { withTimezone: true }),
    /** TOTP secret (AES-256-GCM at rest); required at login once totpEnabledAt is set. */
    totpSecretEnc: text('totp_secret_enc'),
    totpEnabledAt: timestamp('totp_enabled_at', { withTimezone: true }),
    /** The last TOTP time step accepted: a code of that step or an earlier one is refused (no replay). */
    totpLastStep: bigint('totp_last_step', { mode: 'number' }),
    /** One-time recovery codes, stored as SHA-256 hashes; a used one is removed. */
    recoveryCodes: text('recovery_codes')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    createdAt: created(),
  },
  (t) => [
    uniqueIndex('managers_username_lower').on(sql`lower(${t.username})`),
    check('managers_role', sql`${t.role} in ('owner', 'operations', 'support', 'finance')`),
  ],
);

/** Refresh tokens, stored hashed; rotated on every use; reuse of a spent one revokes its family. */
export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    realm: text('realm').notNull(),
    subjectId: integer('subject_id').notNull(),
    familyId: uuid('family_id').notNull(),
    tokenHash: text('token_hash').notNull(),
    remember: boolean('remember').notNull().default(false),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    userAgent: text('user_agent'),
    ip: text('ip'),
    createdAt: created(),
  },
  (t) => [
    uniqueIndex('refresh_tokens_hash').on(t.tokenHash),
    index('refresh_tokens_family').on(t.familyId),
    index('refresh_tokens_subject').on(t.realm, t.subjectId),
    check('refresh_tokens_realm', sql`${t.realm} in ('customer', 'manager')`),
  ],
);

/** Site settings as key/value (public settings, payments switches, rooms, client app version…). */
export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export const plans = pgTable('plans', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  /** Sentences separated by '. ' (the SPA shows one bullet per sentence). */
  description: text('description').notNull(),
  price: numeric('price', { precision: 10, scale: 2 }).notNull(),
  validity: interval('validity').notNull(),
  active: boolean('active').notNull().default(true),
  sortOrder: integer('sort_order').notNull().default(0),
  /** Data allowance for the plan's validity in GB (10^9 bytes), or null: unlimited (0015). */
  dataGb: numeric('data_gb', { precision: 12, scale: 3 }),
  /** Issue 35 (0033): speed each way in kbit/s, null = unlimited. */
  speedDownKbit: integer('speed_down_kbit'),
  speedUpKbit: integer('speed_up_kbit'),
  /** When the allowance runs out: 'cut' (off until a plan) or 'reduce' (online at reducedKbit). */
  dataExhaustedAction: text('data_exhausted_action').$type<'cut' | 'reduce'>().notNull().default('cut'),
  reducedKbit: integer('reduced_kbit').notNull().default(256),
  /** Days online at reducedKbit after expiry before the cut; 0 = none. */
  graceDays: integer('grace_days').notNull().default(0),
  createdAt: created(),
});

/** VPN servers (nodes), each run by an agent that dials in with its token. */
export const servers = pgTable(
  'servers',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    /** Public host clients dial (name or address). */
    host: text('host').notNull(),
    port: integer('port').notNull().default(51820),
    ubication: text('ubication').notNull(),
    active: boolean('active').notNull().default(true),
    allowRooms: boolean('allow_rooms').notNull().default(false),
    dns: text('dns').notNull().default('1.1.1.1, 8.8.8.8'),
    mtu: integer('mtu').notNull().default(1420),
    /** WireGuard interface name on the node. */
    interfaceName: text('interface_name').notNull().default('wg0'),
    publicKey: text('public_key').notNull(),
    privateKeyEnc: text('private_key_enc').notNull(),
    agentTokenHash: text('agent_token_hash'),
    /** Desired-state revision; bumped by every change to this server's peers. */
    revision: bigint('revision', { mode: 'number' }).notNull().default(0),
    ackedRevision: bigint('acked_revision', { mode: 'number' }).notNull().default(0),
    agentVersion: text('agent_version'),
    /** Node.js version of the agent's hello (0017; null: an older agent). */
    agentNodeVersion: text('agent_node_version'),
    /** The last "Actualizar agente" (0017): 'pending' or 'failed', target version, why it failed. */
    agentUpgradeStatus: text('agent_upgrade_status'),
    agentUpgradeVersion: text('agent_upgrade_version'),
    agentUpgradeError: text('agent_upgrade_error'),
    agentUpgradeAt: timestamp('agent_upgrade_at', { withTimezone: true }),
    /** Game discovery relayed in rooms on this server (0024; the site switch can still turn it off). */
    allowDiscovery: boolean('allow_discovery').notNull().default(true),
    /** The agent's last `relay_stats` (0024): rules in place (null: never reported), counters. */
    relayActive: boolean('relay_active'),
    relayRelayed: bigint('relay_relayed', { mode: 'number' }).notNull().default(0),
    relayDropped: bigint('relay_dropped', { mode: 'number' }).notNull().default(0),
    relayReportedAt: timestamp('relay_reported_at', { withTimezone: true }),
    /** Why the agent could not put the relay's rules in place (nft's reason; 0026), null when it could. */
    relayError: text('relay_error'),
    /** The agent's last `node_health` (0032, issue 34) without its type, and when it came. */
    health: jsonb('health').$type<Omit<AgentNodeHealth, 'type'>>(),
    healthAt: timestamp('health_at', { withTimezone: true }),
    /** When the agent's connection last closed (0032): how long it has been offline. */
    disconnectedAt: timestamp('disconnected_at', { withTimezone: true }),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }),
    createdAt: created(),
  },
  (t) => [uniqueIndex('servers_agent_token').on(t.agentTokenHash)],
);

/**
 * The desired-state change log: every change to a server's peers bumps its revision and records
 * which peers to re-send (by id) and which public keys to remove. An agent's connection replays
 * the entries after the last revision it was sent; entries at or below the acked revision are pruned.
 */
export const serverChanges = pgTable(
  'server_changes',
  {
    serverId: integer('server_id')
      .notNull()
      .references(() => servers.id, { onDelete: 'cascade' }),
    revision: bigint('revision', { mode: 'number' }).notNull(),
    upsertPeerIds: integer('upsert_peer_ids')
      .array()
      .notNull()
      .default(sql`'{}'::integer[]`),
    removeKeys: text('remove_keys')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** Everything changed (site switches, server settings): the agent gets a full snapshot. */
    full: boolean('full').notNull().default(false),
    /**
     * A room change as a delta (issue 33, services/fleet/roomDelta.ts): the pairs it added and removed
     * on this server, the rooms and mesh links it touched. Agents without `room_deltas` get a snapshot.
     */
    rooms: jsonb('rooms').$type<RoomChangeRecord>(),
    createdAt: created(),
  },
  (t) => [primaryKey({ columns: [t.serverId, t.revision] })],
);

/**
 * Bus events too big for pg_notify (8000 bytes): stored here, their id notified (realtime/bus.ts).
 * Pruned after a few minutes (migration 0014).
 */
export const busPayloads = pgTable('bus_payloads', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  payload: text('payload').notNull(),
  createdAt: created(),
});

/** A server drain's progress, persisted so any instance can report it (migration 0008). */
export const serverDrains = pgTable('server_drains', {
  serverId: integer('server_id')
    .primaryKey()
    .references(() => servers.id, { onDelete: 'cascade' }),
  total: integer('total').notNull(),
  moved: integer('moved').notNull().default(0),
  startedBy: integer('started_by').references(() => managers.id, { onDelete: 'set null' }),
  startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
  /** Written after every batch: a drain not updated for a while has died with its instance. */
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  finishedAt: timestamp('finished_at', { withTimezone: true }),
  error: text('error'),
});

export const rooms = pgTable(
  'rooms',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    ownerId: integer('owner_id')
      .notNull()
      .references(() => customers.id, { onDelete: 'cascade' }),
    /** Shown to the owner, so kept encrypted (AES-256-GCM), not hashed. */
    passwordEnc: text('password_enc').notNull(),
    processing: boolean('processing').notNull().default(false),
    /** Server revisions the room waits for (while processing): [{ s, r }]. */
    pendingRevision: jsonb('pending_revision'),
    createdAt: created(),
  },
  (t) => [
    uniqueIndex('rooms_name_lower').on(sql`lower(${t.name})`),
    index('rooms_owner').on(t.ownerId),
    // Settling (every ack) finds the few rooms waiting on agents without reading every room.
    index('rooms_pending')
      .on(t.id)
      .where(sql`${t.pendingRevision} is not null`),
    index('rooms_name_trgm').using('gin', sql`lower(${t.name}) gin_trgm_ops`),
  ],
);

/** Peers: a customer's WireGuard device. Its address is fleet-wide and kept for life. */
export const peers = pgTable(
  'peers',
  {
    id: serial('id').primaryKey(),
    customerId: integer('customer_id')
      .notNull()
      .references(() => customers.id, { onDelete: 'cascade' }),
    serverId: integer('server_id')
      .notNull()
      .references(() => servers.id),
    name: text('name').notNull(),
    /** Offset inside the fleet pool (10.64.0.0/10); unique, allocated transactionally. */
    addressIndex: integer('address_index').notNull(),
    address: inet('address').notNull(),
    addressV6: inet('address_v6'),
    publicKey: text('public_key').notNull(),
    privateKeyEnc: text('private_key_enc').notNull(),
    presharedKeyEnc: text('preshared_key_enc').notNull(),
    /** The mirror token, encrypted (to show the link to its owner); a clear one only until the next start. */
    mirrorTokenEnc: text('mirror_token_enc').notNull(),
    /** sha256(token): what GET /api/mirror/<token> looks up. */
    mirrorTokenHash: text('mirror_token_hash').notNull(),
    active: boolean('active').notNull().default(true),
    /**
     * When a manager switched the peer off (issue 17, L9), null otherwise. While set the peer stays
     * off: a plan bought or granted meanwhile extends its period but does not switch it back on;
     * only a manager switching it on lifts it. The owner is shown why.
     */
    managerDisabledAt: timestamp('manager_disabled_at', { withTimezone: true }),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    manualPayment: boolean('manual_payment').notNull().default(false),
    roomId: integer('room_id').references(() => rooms.id, { onDelete: 'set null' }),
    /** Operation waiting for agent acks (regenerate, change_server…), else null. */
    pendingOperation: text('pending_operation'),
    pendingRevision: jsonb('pending_revision'),
    /**
     * When the renewal reminders went out; each counts for the expiry it was sent for (at or after
     * expiresAt - 72 h / 24 h), so a renewal arms it again (see services/billing/reminders.ts).
     */
    reminded72hAt: timestamp('reminded_72h_at', { withTimezone: true }),
    reminded24hAt: timestamp('reminded_24h_at', { withTimezone: true }),
    /**
     * The data allowance of the current period in bytes (from the last plan applied), null when
     * unlimited; the period's traffic (both directions) counted against it; when the owner was told
     * of 80%, and when it ran out (the peer is then off until a plan is applied). See services/peers/allowance.ts.
     */
    dataAllowance: bigint('data_allowance', { mode: 'number' }),
    dataUsed: bigint('data_used', { mode: 'number' }).notNull().default(0),
    /**
     * Use at or past 80 % of the allowance (allowance.ts NOTICE_PERCENT), computed by PostgreSQL:
     * the allowance scans read only these peers (index peers_data_due). data_used itself is in no
     * index, and this value changes once per period, so the per-reading update stays HOT
     * (migration 0029; the table's fillfactor is 80).
     */
    dataDue: boolean('data_due')
      .notNull()
      .generatedAlwaysAs(sql`data_allowance is not null and data_used * 100 >= data_allowance * 80`),
    dataNoticeAt: timestamp('data_notice_at', { withTimezone: true }),
    dataExhaustedAt: timestamp('data_exhausted_at', { withTimezone: true }),
    /**
     * Issue 35 (0033): the speed terms of the last plan applied (kbit/s, null = unlimited; see
     * services/fleet/peerSpeed.ts), and while the peer is held at the reduced speed, since when and why
     * ('data': out of data on a plan that reduces; 'expired': within the grace after expiry).
     */
    speedDownKbit: integer('speed_down_kbit'),
    speedUpKbit: integer('speed_up_kbit'),
    reduceOnExhausted: boolean('reduce_on_exhausted').notNull().default(false),
    reducedKbit: integer('reduced_kbit').notNull().default(256),
    graceDays: integer('grace_days').notNull().default(0),
    speedReducedAt: timestamp('speed_reduced_at', { withTimezone: true }),
    speedReducedReason: text('speed_reduced_reason').$type<'data' | 'expired'>(),
    /**
     * In use on more than one device (issue 19, services/peers/concurrentUse.ts): first seen in this
     * episode, last report, distinct addresses, the last two truncated to /24 or /48, and the
     * reports of the last 24 h (the policy counts them). All null when not flagged.
     */
    concurrentUseAt: timestamp('concurrent_use_at', { withTimezone: true }),
    concurrentUseSeenAt: timestamp('concurrent_use_seen_at', { withTimezone: true }),
    concurrentUseEndpoints: integer('concurrent_use_endpoints'),
    concurrentUseRecent: jsonb('concurrent_use_recent').$type<string[]>(),
    /** Unix milliseconds of each report within the last 24 h. */
    concurrentUseReports: jsonb('concurrent_use_reports').$type<number[]>(),
    createdAt: created(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('peers_address_index').on(t.addressIndex),
    uniqueIndex('peers_public_key').on(t.publicKey),
    uniqueIndex('peers_mirror_token_hash').on(t.mirrorTokenHash),
    index('peers_customer').on(t.customerId),
    index('peers_server').on(t.serverId),
    index('peers_room').on(t.roomId),
    // A server's room members (issue 33): a room change's mesh link reads the members two servers
    // share, not every peer of each (10,000 a node in bench:fleet).
    index('peers_room_members')
      .on(t.serverId, t.roomId)
      .where(sql`${t.roomId} is not null`),
    // Few peers are busy at once: acks look them up through this small partial index.
    index('peers_pending')
      .on(t.serverId)
      .where(sql`${t.pendingOperation} is not null`),
    index('peers_expires').on(t.expiresAt),
    // The expiry scan: active peers only, so peers that expired long ago are not read every tick.
    index('peers_expiry_due')
      .on(t.expiresAt)
      .where(sql`${t.active}`),
    index('peers_data_due')
      .on(t.id)
      .where(sql`${t.dataDue} and ${t.dataExhaustedAt} is null`),
    index('peers_data_watch')
      .on(t.id)
      .where(sql`${t.dataAllowance} is not null and ${t.dataExhaustedAt} is null`),
    index('peers_name_trgm').using('gin', sql`lower(${t.name}) gin_trgm_ops`),
    index('peers_public_key_trgm').using('gin', sql`${t.publicKey} gin_trgm_ops`),
    index('peers_address_trgm').using('gin', sql`host(${t.address}) gin_trgm_ops`),
    index('peers_concurrent_use')
      .on(t.concurrentUseSeenAt)
      .where(sql`${t.concurrentUseSeenAt} is not null`),
  ],
);

/** Every plan applied to a peer (the Details dialog's history). */
export const planHistory = pgTable(
  'plan_history',
  {
    id: serial('id').primaryKey(),
    peerId: integer('peer_id')
      .notNull()
      .references(() => peers.id, { onDelete: 'cascade' }),
    planId: integer('plan_id').references(() => plans.id, { onDelete: 'set null' }),
    planName: text('plan_name').notNull(),
    planPrice: numeric('plan_price', { precision: 10, scale: 2 }).notNull(),
    validity: interval('validity').notNull(),
    /** The plan's data allowance in bytes when it was applied, null when unlimited. */
    dataBytes: bigint('data_bytes', { mode: 'number' }),
    invoiceId: uuid('invoice_id'),
    /** Granted by a manager (no payment): who and why. */
    manual: boolean('manual').notNull().default(false),
    reason: text('reason'),
    grantedBy: integer('granted_by').references(() => managers.id, { onDelete: 'set null' }),
    /** The invoice that paid it was refunded and its period taken back (migration 0016). */
    refundedAt: timestamp('refunded_at', { withTimezone: true }),
    createdAt: created(),
  },
  (t) => [
    index('plan_history_peer').on(t.peerId),
    // An invoice delivers once: a replayed delivery cannot add a second peer or plan (0004).
    uniqueIndex('plan_history_invoice').on(t.invoiceId),
  ],
);

/** Room membership history is the peers.room_id column; this keeps who joined when. */
export const roomMembers = pgTable(
  'room_members',
  {
    roomId: integer('room_id')
      .notNull()
      .references(() => rooms.id, { onDelete: 'cascade' }),
    peerId: integer('peer_id')
      .notNull()
      .references(() => peers.id, { onDelete: 'cascade' }),
    joinedAt: timestamp('joined_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.roomId, t.peerId] }), uniqueIndex('room_members_peer').on(t.peerId)],
);

/**
 * Every room member as the room computations read it (issue 33, migration 0040): a copy of the
 * peers' `room_id`, `server_id` and `address`, kept by triggers on `peers` (never written by the
 * code), in a table the stats reports do not rewrite. A room change's mesh link reads the members
 * of every room two servers share through its index alone (services/fleet/roomDelta.ts).
 */
export const roomLinks = pgTable(
  'room_links',
  {
    peerId: integer('peer_id')
      .primaryKey()
      .references(() => peers.id, { onDelete: 'cascade' }),
    roomId: integer('room_id').notNull(),
    serverId: integer('server_id').notNull(),
    address: inet('address').notNull(),
  },
  (t) => [index('room_links_server_room').on(t.serverId, t.roomId), index('room_links_room').on(t.roomId)],
);

/**
 * Per-server peer counts as /metrics shows them (issue 33, migration 0041): counted once per
 * METRICS_PEER_COUNTS_SECONDS for the whole cluster by the instance whose scheduler takes the
 * period's lease (services/site/telemetry.ts), read by every instance's scrape. One row per server
 * that existed at the count, all with the same `counted_at`.
 */
export const serverPeerCounts = pgTable('server_peer_counts', {
  serverId: integer('server_id')
    .primaryKey()
    .references(() => servers.id, { onDelete: 'cascade' }),
  active: integer('active').notNull(),
  disabled: integer('disabled').notNull(),
  concurrent: integer('concurrent').notNull(),
  shaped: integer('shaped').notNull(),
  reduced: integer('reduced').notNull(),
  countedAt: timestamp('counted_at', { withTimezone: true }).notNull(),
});

export const invoices = pgTable(
  'invoices',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    customerId: integer('customer_id')
      .notNull()
      .references(() => customers.id, { onDelete: 'cascade' }),
    /** add_plan | new_peer */
    operation: text('operation').notNull(),
    peerId: integer('peer_id').references(() => peers.id, { onDelete: 'set null' }),
    newPeerName: text('new_peer_name'),
    planId: integer('plan_id')
      .notNull()
      .references(() => plans.id),
    planName: text('plan_name').notNull(),
    amount: numeric('amount', { precision: 10, scale: 2 }).notNull(),
    currency: text('currency').notNull().default('USD'),
    /** qvapay | remesita | sandbox | manual */
    gateway: text('gateway').notNull(),
    /** pending | paid | canceled | expired | failed */
    status: text('status').notNull().default('pending'),
    remoteId: text('remote_id'),
    transactionUuid: text('transaction_uuid'),
    paymentUrl: text('payment_url'),
    /** SHA-256 (hex) of the secret in the invoice's notification URL (Remesita's IPN), migration 0013. */
    notifySecretHash: text('notify_secret_hash'),
    paidAt: timestamp('paid_at', { withTimezone: true }),
    /** When what was bought was delivered (peer created or plan added); null while paid and pending. */
    creditedAt: timestamp('credited_at', { withTimezone: true }),
    /** Marked paid by hand (bank transfer…): which manager and why. */
    markedBy: integer('marked_by').references(() => managers.id, { onDelete: 'set null' }),
    markReason: text('mark_reason'),
    /** Failed deliveries of a paid invoice so far; the scheduler retries from deliveryRetryAt. */
    deliveryAttempts: integer('delivery_attempts').notNull().default(0),
    deliveryRetryAt: timestamp('delivery_retry_at', { withTimezone: true }),
    /** Refunded (migration 0016): when, by which manager, why, and the gateway's refund id (null: by hand). */
    refundedAt: timestamp('refunded_at', { withTimezone: true }),
    refundedBy: integer('refunded_by').references(() => managers.id, { onDelete: 'set null' }),
    refundReason: text('refund_reason'),
    refundReference: text('refund_reference'),
    /** A refund asked of the gateway and not finished yet (one at a time per invoice). */
    refundStartedAt: timestamp('refund_started_at', { withTimezone: true }),
    /** The last time a customer's poll asked the gateway (at most once per 30 s per invoice). */
    gatewayCheckedAt: timestamp('gateway_checked_at', { withTimezone: true }),
    /** What that check said when it refused the payment (Spanish, for the customer); null otherwise. */
    gatewayMessage: text('gateway_message'),
    createdAt: created(),
  },
  (t) => [
    index('invoices_customer').on(t.customerId),
    uniqueIndex('invoices_remote').on(t.gateway, t.remoteId),
    // One gateway transaction pays one invoice (migration 0010).
    uniqueIndex('invoices_transaction').on(t.transactionUuid),
    index('invoices_created').on(t.createdAt),
    index('invoices_status_created').on(t.status, t.createdAt),
    index('invoices_peer').on(t.peerId),
    index('invoices_plan').on(t.planId),
    index('invoices_remote_trgm').using('gin', sql`lower(${t.remoteId}) gin_trgm_ops`),
    index('invoices_new_peer_name_trgm').using('gin', sql`lower(${t.newPeerName}) gin_trgm_ops`),
    index('invoices_undelivered')
      .on(t.paidAt)
      .where(sql`${t.status} = 'paid' and ${t.creditedAt} is null`),
    index('invoices_paid_at')
      .on(t.paidAt)
      .where(sql`${t.paidAt} is not null`),
  ],
);

/**
 * Every paid notice a gateway sent, once per gateway reference (migration 0016): a repeat finds its
 * row and changes nothing. `outcome`: `credited` (it paid its invoice) or `unmatched` (money that
 * arrived and credited nothing: the invoice was no longer open, already paid by another payment, or
 * the amount did not cover it; the console shows these as "pago sin factura abierta").
 */
export const paymentNotices = pgTable(
  'payment_notices',
  {
    id: serial('id').primaryKey(),
    gateway: text('gateway').notNull(),
    reference: text('reference').notNull(),
    invoiceId: uuid('invoice_id').references(() => invoices.id, { onDelete: 'set null' }),
    amount: numeric('amount', { precision: 10, scale: 2 }),
    currency: text('currency'),
    /** The status the gateway named (paid, completed…). */
    gatewayStatus: text('gateway_status').notNull(),
    outcome: text('outcome').notNull(),
    /** Why an unmatched payment credited nothing (Spanish, for the operator). */
    reason: text('reason'),
    /** An operator settled it (credited by hand, refunded outside…). */
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
    createdAt: created(),
  },
  (t) => [
    uniqueIndex('payment_notices_reference').on(t.gateway, t.reference),
    index('payment_notices_unmatched')
      .on(t.createdAt)
      .where(sql`${t.outcome} = 'unmatched'`),
  ],
);

export const announcements = pgTable('announcements', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  message: text('message').notNull(),
  active: boolean('active').notNull().default(true),
  createdAt: created(),
});

/** Client-app releases published by managers; the newest is announced on the dashboard home. */
export const clientVersions = pgTable('client_versions', {
  id: serial('id').primaryKey(),
  version: text('version').notNull(),
  url: text('url').notNull(),
  createdAt: created(),
});

/**
 * Each peer's latest agent report: the WireGuard counters the next report's deltas are taken from
 * (null until a first report sets the baseline), its last handshake and endpoint. One row per peer,
 * updated in place (no sample is stored). Counters belong to (server, public key): a report from
 * another server or under another key starts a new baseline.
 */
export const peerStats = pgTable(
  'peer_stats',
  {
    peerId: integer('peer_id')
      .primaryKey()
      .references(() => peers.id, { onDelete: 'cascade' }),
    serverId: integer('server_id').notNull(),
    publicKey: text('public_key').notNull(),
    rxCounter: bigint('rx_counter', { mode: 'number' }),
    txCounter: bigint('tx_counter', { mode: 'number' }),
    latestHandshake: timestamp('latest_handshake', { withTimezone: true }),
    endpoint: text('endpoint'),
    reportedAt: timestamp('reported_at', { withTimezone: true }).notNull().defaultNow(),
  },
  // A peer's last report from a server it has left (L4): found by what that server reported.
  (t) => [index('peer_stats_server_key').on(t.serverId, t.publicKey)],
);

/**
 * The servers a peer was moved off or re-keyed on, with the key it had there (0025, issue 31; re-keys
 * issue 33): a server's last report of a key that has left it (services/peers/usage.ts) counts only
 * when the key did leave that server, and once (the row is consumed). One row per peer, server and
 * key (0038): every departure waits for its last reading, so three re-keys within one stats interval
 * all count; bounded in services/peers/departures.ts (a week, 16 per peer and server).
 */
export const peerDepartures = pgTable(
  'peer_departures',
  {
    peerId: integer('peer_id')
      .notNull()
      .references(() => peers.id, { onDelete: 'cascade' }),
    serverId: integer('server_id')
      .notNull()
      .references(() => servers.id, { onDelete: 'cascade' }),
    publicKey: text('public_key').notNull(),
    leftAt: timestamp('left_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.peerId, t.serverId, t.publicKey] }),
    index('peer_departures_server_key').on(t.serverId, t.publicKey),
  ],
);

/** Traffic per peer per UTC hour (deltas summed in), for the last 30 days; older hours move to peerUsageDaily. */
export const peerUsageHourly = pgTable(
  'peer_usage_hourly',
  {
    peerId: integer('peer_id')
      .notNull()
      .references(() => peers.id, { onDelete: 'cascade' }),
    /** The server that reported the hour's last delta. */
    serverId: integer('server_id').notNull(),
    hour: timestamp('hour', { withTimezone: true }).notNull(),
    rxBytes: bigint('rx_bytes', { mode: 'number' }).notNull(),
    txBytes: bigint('tx_bytes', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.peerId, t.hour] })],
);

/** Traffic per peer per UTC day, for days older than the hourly window. */
export const peerUsageDaily = pgTable(
  'peer_usage_daily',
  {
    peerId: integer('peer_id')
      .notNull()
      .references(() => peers.id, { onDelete: 'cascade' }),
    serverId: integer('server_id').notNull(),
    day: timestamp('day', { withTimezone: true }).notNull(),
    rxBytes: bigint('rx_bytes', { mode: 'number' }).notNull(),
    txBytes: bigint('tx_bytes', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.peerId, t.day] })],
);

/** Traffic per server per UTC hour (kept whole: a few rows per server per hour), for fleet charts. */
export const serverUsageHourly = pgTable(
  'server_usage_hourly',
  {
    serverId: integer('server_id')
      .notNull()
      .references(() => servers.id, { onDelete: 'cascade' }),
    hour: timestamp('hour', { withTimezone: true }).notNull(),
    rxBytes: bigint('rx_bytes', { mode: 'number' }).notNull(),
    txBytes: bigint('tx_bytes', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.serverId, t.hour] })],
);

/**
 * The times a server's agent was away (issue 34: the Resumen charts mark them): opened when its
 * connection closes, closed at its next hello (ended_at null while ongoing, one open per server);
 * an agent whose instance died is recorded at its next hello, from when it was last seen.
 */
export const serverOutages = pgTable(
  'server_outages',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    serverId: integer('server_id')
      .notNull()
      .references(() => servers.id, { onDelete: 'cascade' }),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    endedAt: timestamp('ended_at', { withTimezone: true }),
  },
  (t) => [
    index('server_outages_server_started').on(t.serverId, t.startedAt),
    uniqueIndex('server_outages_open')
      .on(t.serverId)
      .where(sql`ended_at is null`),
  ],
);

/** One-time e-mail tokens (verification, password reset), stored hashed. */
export const emailTokens = pgTable(
  'email_tokens',
  {
    id: serial('id').primaryKey(),
    customerId: integer('customer_id')
      .notNull()
      .references(() => customers.id, { onDelete: 'cascade' }),
    /** verify_email | reset_password */
    kind: text('kind').notNull(),
    email: text('email'),
    tokenHash: text('token_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: created(),
  },
  (t) => [uniqueIndex('email_tokens_hash').on(t.tokenHash)],
);

/**
 * Rate limits as GCRA states (services/identity/rateLimit.ts): per key, the theoretical arrival time that
 * each counted hit pushes forward, and the last hit's time. In the database so every instance shares them.
 */
export const rateLimits = pgTable(
  'rate_limits',
  {
    key: text('key').primaryKey(),
    tat: timestamp('tat', { withTimezone: true }).notNull(),
    lastAt: timestamp('last_at', { withTimezone: true }),
  },
  (t) => [index('rate_limits_tat').on(t.tat)],
);

/** Spent captcha solutions (ALTCHA), kept until they expire so a solution works once. */
export const captchaSpent = pgTable('captcha_spent', {
  signature: text('signature').primaryKey(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});

/** What managers (and the system) did, for the manager area's audit page. */
export const auditLog = pgTable(
  'audit_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    actorRealm: text('actor_realm').notNull(),
    actorId: integer('actor_id'),
    /** The manager's username at the time (kept if the manager is later deleted). */
    actorName: text('actor_name'),
    action: text('action').notNull(),
    target: text('target'),
    /** What was changed: customer, plan, peer, invoice, party, server, manager, settings… */
    targetType: text('target_type'),
    targetId: text('target_id'),
    /** `{ changes: { field: { before, after } }, reason? }` — secrets never. */
    data: jsonb('data'),
    ip: text('ip'),
    createdAt: created(),
  },
  (t) => [
    index('audit_log_time').on(t.createdAt),
    index('audit_log_actor').on(t.actorId, t.createdAt),
    index('audit_log_target').on(t.targetType, t.targetId, t.createdAt),
  ],
);

/**
 * Telegram (issue 20, migration 0019; services/telegram/). A chat linked to an account, one per
 * account and realm; the link ends when the account's sessions are revoked after it (password
 * change, disabled), checked on every use against `sessions_valid_after`.
 */
export const telegramLinks = pgTable(
  'telegram_links',
  {
    id: serial('id').primaryKey(),
    realm: text('realm').notNull(),
    subjectId: integer('subject_id').notNull(),
    chatId: bigint('chat_id', { mode: 'number' }).notNull(),
    linkedAt: timestamp('linked_at', { withTimezone: true }).notNull(),
    notifyReminders: boolean('notify_reminders').notNull().default(true),
    notifyAllowance: boolean('notify_allowance').notNull().default(true),
    notifyPayments: boolean('notify_payments').notNull().default(true),
    notifyAnnouncements: boolean('notify_announcements').notNull().default(true),
    notifyConcurrent: boolean('notify_concurrent').notNull().default(true),
  },
  (t) => [
    uniqueIndex('telegram_links_subject').on(t.realm, t.subjectId),
    uniqueIndex('telegram_links_chat').on(t.realm, t.chatId),
    check('telegram_links_realm', sql`${t.realm} in ('customer', 'manager')`),
  ],
);

/** "Vincular Telegram" codes: SHA-256 of the code, 10 minutes, single use. */
export const telegramLinkCodes = pgTable('telegram_link_codes', {
  codeHash: text('code_hash').primaryKey(),
  realm: text('realm').notNull(),
  subjectId: integer('subject_id').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true }),
});

/** One row per notice sent (its key names what and for which state): claimed before sending. */
export const telegramSent = pgTable('telegram_sent', {
  key: text('key').primaryKey(),
  createdAt: created(),
});

/** Manager alerts' states: observed since when, and what was last told when (de-duplication). */
export const telegramAlerts = pgTable('telegram_alerts', {
  key: text('key').primaryKey(),
  observed: text('observed').notNull(),
  observedSince: timestamp('observed_since', { withTimezone: true }).notNull(),
  notified: text('notified'),
  notifiedAt: timestamp('notified_at', { withTimezone: true }),
});

/** Updates already handled: an update is answered by the instance that inserts its id. */
export const telegramUpdates = pgTable('telegram_updates', {
  updateId: bigint('update_id', { mode: 'number' }).primaryKey(),
  createdAt: created(),
});

/** The poller's lease: one instance polls (and sends notices) while it holds it. */
export const telegramLease = pgTable('telegram_lease', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});

/** Announcements the operator ticked "enviar por Telegram", until every linked chat had them. */
export const telegramBroadcasts = pgTable('telegram_broadcasts', {
  id: serial('id').primaryKey(),
  message: text('message').notNull(),
  createdAt: created(),
  doneAt: timestamp('done_at', { withTimezone: true }),
});

/**
 * A notice owed to one customer after a bulk action (migration 0035, issue 34): one row per customer and
 * action, however many of their peers it changed. Mailed by the scheduler (`mailed_at`: sent, or
 * nothing to send), sent to a linked Telegram chat by the lease holder (`telegram_at`).
 */
export const customerNotices = pgTable('customer_notices', {
  id: serial('id').primaryKey(),
  customerId: integer('customer_id')
    .notNull()
    .references(() => customers.id, { onDelete: 'cascade' }),
  subject: text('subject').notNull(),
  message: text('message').notNull(),
  createdAt: created(),
  mailedAt: timestamp('mailed_at', { withTimezone: true }),
  telegramAt: timestamp('telegram_at', { withTimezone: true }),
});
