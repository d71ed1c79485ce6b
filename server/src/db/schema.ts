/**
 * The whole data model, for every part of the product (later issues add behaviour, not tables).
 * One SQL dialect: the same pg-core schema and migrations serve PGlite and PostgreSQL.
 */
import { sql } from 'drizzle-orm';
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
  ],
);

export const managers = pgTable(
  'managers',
  {
    id: serial('id').primaryKey(),
    username: text('username').notNull(),
    passwordHash: text('password_hash').notNull(),
    /** owner | admin | support (the manager area's roles). */
    role: text('role').notNull().default('admin'),
    active: boolean('active').notNull().default(true),
    sessionsValidAfter: timestamp('sessions_valid_after', { withTimezone: true }),
    createdAt: created(),
  },
  (t) => [uniqueIndex('managers_username_lower').on(sql`lower(${t.username})`)],
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
    allowPartys: boolean('allow_partys').notNull().default(false),
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
    /** Rooms changed: the agent gets a full snapshot (room pairs and mesh links are recomputed). */
    full: boolean('full').notNull().default(false),
    createdAt: created(),
  },
  (t) => [primaryKey({ columns: [t.serverId, t.revision] })],
);

export const parties = pgTable(
  'parties',
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
  (t) => [uniqueIndex('parties_name_lower').on(sql`lower(${t.name})`), index('parties_owner').on(t.ownerId)],
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
    mirrorToken: text('mirror_token').notNull(),
    active: boolean('active').notNull().default(true),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    manualPayment: boolean('manual_payment').notNull().default(false),
    partyId: integer('party_id').references(() => parties.id, { onDelete: 'set null' }),
    /** Operation waiting for agent acks (regenerate, change_server…), else null. */
    pendingOperation: text('pending_operation'),
    pendingRevision: jsonb('pending_revision'),
    createdAt: created(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('peers_address_index').on(t.addressIndex),
    uniqueIndex('peers_public_key').on(t.publicKey),
    uniqueIndex('peers_mirror_token').on(t.mirrorToken),
    index('peers_customer').on(t.customerId),
    index('peers_server').on(t.serverId),
    index('peers_party').on(t.partyId),
    // Few peers are busy at once: acks look them up through this small partial index.
    index('peers_pending')
      .on(t.serverId)
      .where(sql`${t.pendingOperation} is not null`),
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
    invoiceId: uuid('invoice_id'),
    createdAt: created(),
  },
  (t) => [index('plan_history_peer').on(t.peerId)],
);

/** Room membership history is the peers.party_id column; this keeps who joined when. */
export const partyMembers = pgTable(
  'party_members',
  {
    partyId: integer('party_id')
      .notNull()
      .references(() => parties.id, { onDelete: 'cascade' }),
    peerId: integer('peer_id')
      .notNull()
      .references(() => peers.id, { onDelete: 'cascade' }),
    joinedAt: timestamp('joined_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.partyId, t.peerId] }), uniqueIndex('party_members_peer').on(t.peerId)],
);

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
    paidAt: timestamp('paid_at', { withTimezone: true }),
    creditedAt: timestamp('credited_at', { withTimezone: true }),
    createdAt: created(),
  },
  (t) => [
    index('invoices_customer').on(t.customerId),
    uniqueIndex('invoices_remote').on(t.gateway, t.remoteId),
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

/** Per-peer traffic samples reported by agents (deltas, so history survives counter resets). */
export const peerUsage = pgTable(
  'peer_usage',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    peerId: integer('peer_id')
      .notNull()
      .references(() => peers.id, { onDelete: 'cascade' }),
    serverId: integer('server_id')
      .notNull()
      .references(() => servers.id, { onDelete: 'cascade' }),
    rxBytes: bigint('rx_bytes', { mode: 'number' }).notNull(),
    txBytes: bigint('tx_bytes', { mode: 'number' }).notNull(),
    latestHandshake: timestamp('latest_handshake', { withTimezone: true }),
    endpoint: text('endpoint'),
    sampledAt: timestamp('sampled_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('peer_usage_peer_time').on(t.peerId, t.sampledAt)],
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

/** Fixed-window counters for rate limits; in the database so every instance shares them. */
export const rateLimits = pgTable(
  'rate_limits',
  {
    key: text('key').notNull(),
    windowStart: timestamp('window_start', { withTimezone: true }).notNull(),
    hits: integer('hits').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.key, t.windowStart] })],
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
    action: text('action').notNull(),
    target: text('target'),
    data: jsonb('data'),
    ip: text('ip'),
    createdAt: created(),
  },
  (t) => [index('audit_log_time').on(t.createdAt)],
);
