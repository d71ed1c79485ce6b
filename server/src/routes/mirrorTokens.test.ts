/**
 * Issue 17, M4: a copy of the database alone must not open any peer's configuration. Tokens are
 * looked up by their hash and kept only encrypted; links handed out before the change still work.
 */
import { readFileSync } from 'node:fs';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peers } from '../db/schema.ts';
import { randomToken } from '../lib/crypto.ts';
import { sealClearMirrorTokens } from '../services/peers/mirrorTokens.ts';
import {
  bearer,
  createCustomer,
  createPlan,
  createServer,
  createTestApp,
  grantPeer,
  login,
  managerToken,
  type TestApp,
} from '../../test/helpers.ts';

let t: TestApp;
let owner: string;
let serverId: number;
let planId: number;
beforeAll(async () => {
  t = await createTestApp({ scheduler: false });
  owner = await managerToken(t);
  serverId = (await createServer(t, owner, 'Espejo')).id;
  planId = (await createPlan(t)).id;
});
afterAll(() => t.close());

const tokenOf = (link: string) => new URL(link, 'http://x').pathname.split('/').pop()!;
const peerRows = async () => JSON.stringify((await t.ctx.db.execute(sql`select * from peers`)) as unknown);

async function customerPeer() {
  const c = await createCustomer(t);
  const row = await grantPeer(t, owner, { username: c.username, plan: planId, server: serverId });
  const session = await login(t, c.username, c.password);
  const list = await t.app.inject({ url: '/api/client/accounts/peers', headers: bearer(session.access) });
  const link = (list.json() as { id: number; mirror_link: string }[]).find(
    (p) => p.id === row.id,
  )!.mirror_link;
  return { row, session, link };
}

describe('mirror tokens at rest', () => {
  it('are not in the database: a copy of the peers table does not hold the token of a working link', async () => {
    const { link } = await customerPeer();
    const token = tokenOf(link);
    expect((await t.app.inject({ url: `/api/mirror/${token}` })).statusCode).toBe(200);
    expect(await peerRows()).not.toContain(token);
  });

  it('keep links handed out before migration 0018 working, and get encrypted at the next start', async () => {
    const { row, session } = await customerPeer();
    // The row as it was before the migration: the token in clear.
    const legacy = randomToken(32);
    await t.ctx.db
      .update(peers)
      .set({ mirrorTokenEnc: legacy, mirrorTokenHash: 'x' })
      .where(eq(peers.id, row.id));
    // The migration's own statement (its column renamed as the same migration renames it) hashes it.
    const migration = readFileSync(
      new URL('../../drizzle/0018_rate_limits_mirror_hash.sql', import.meta.url),
      'utf8',
    );
    const update = migration.split('--> statement-breakpoint').find((s) => s.includes('UPDATE "peers"'))!;
    await t.ctx.db.execute(
      sql.raw(
        `${update.trim().replace(/;$/, '').replaceAll('"mirror_token"', '"mirror_token_enc"')} WHERE "id" = ${row.id}`,
      ),
    );
    expect((await t.app.inject({ url: `/api/mirror/${legacy}` })).statusCode).toBe(200);
    expect(await sealClearMirrorTokens(t.ctx.db, t.ctx.keys.encryption)).toBe(1);
    expect(await peerRows()).not.toContain(legacy);
    expect((await t.app.inject({ url: `/api/mirror/${legacy}` })).statusCode).toBe(200);
    // The owner still sees the same link.
    const list = await t.app.inject({ url: '/api/client/accounts/peers', headers: bearer(session.access) });
    const link = (list.json() as { id: number; mirror_link: string }[]).find(
      (p) => p.id === row.id,
    )!.mirror_link;
    expect(tokenOf(link)).toBe(legacy);
    expect(await sealClearMirrorTokens(t.ctx.db, t.ctx.keys.encryption)).toBe(0);
  });
});
