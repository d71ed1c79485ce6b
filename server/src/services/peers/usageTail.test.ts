/**
 * Issue 17, L4: bytes a peer moved in its last seconds on an interface were never counted (its
 * allowance lost its tail). The agent reads the counters once more before the peer leaves the
 * interface and reports them; the control plane must accept that last report even when the peer
 * has already moved to another server or changed its key.
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peerDepartures, peerUsageHourly, peers } from '../../db/schema.ts';
import {
  createCustomer,
  createPlan,
  createServer,
  createTestApp,
  grantPeer,
  managerToken,
  type TestApp,
} from '../../../test/helpers.ts';
import { compactUsage, recordStats } from './usage.ts';

let t: TestApp;
let owner: string;
let planId: number;
let a: { id: number };
let b: { id: number };
beforeAll(async () => {
  t = await createTestApp({ scheduler: false });
  owner = await managerToken(t);
  a = await createServer(t, owner, 'ColaA');
  b = await createServer(t, owner, 'ColaB');
  planId = (await createPlan(t)).id;
});
afterAll(() => t.close());

const counted = async (peerId: number) => {
  const [row] = await t.ctx.db
    .select({
      total: sql<number>`coalesce(sum(${peerUsageHourly.rxBytes} + ${peerUsageHourly.txBytes}), 0)::bigint`,
    })
    .from(peerUsageHourly)
    .where(eq(peerUsageHourly.peerId, peerId));
  return Number(row!.total);
};
/** A manager's move (PeerService: the desired state, and where the peer left from). */
const move = (peerId: number, serverId: number) => t.ctx.peers.adminChangeServer(peerId, serverId);
const report = (server: number, key: string, rx: number, tx: number) =>
  recordStats(t.ctx.db, server, [
    { public_key: key, rx_bytes: rx, tx_bytes: tx, latest_handshake: 0, endpoint: null },
  ]);

describe('the last report of a peer leaving an interface', () => {
  it('counts when the peer already moved to another server', async () => {
    const c = await createCustomer(t);
    const peer = await grantPeer(t, owner, { username: c.username, plan: planId, server: a.id });
    await report(a.id, peer.publicKey, 1000, 2000);
    expect(await counted(peer.id)).toBe(3000);
    // The move committed; server A's agent read the counters once more before removing the peer.
    await move(peer.id, b.id);
    await report(a.id, peer.publicKey, 1500, 2100);
    expect(await counted(peer.id)).toBe(3600);
    // Then the new server's first report: its interface counts from zero.
    await report(b.id, peer.publicKey, 40, 60);
    expect(await counted(peer.id)).toBe(3700);
  });

  it('counts when the peer changed its key (regenerate)', async () => {
    const c = await createCustomer(t);
    const peer = await grantPeer(t, owner, { username: c.username, plan: planId, server: a.id });
    await report(a.id, peer.publicKey, 100, 100);
    await t.ctx.db
      .update(peers)
      .set({ publicKey: `nueva-${peer.publicKey}` })
      .where(eq(peers.id, peer.id));
    await report(a.id, peer.publicKey, 300, 150);
    expect(await counted(peer.id)).toBe(450);
  });

  it('counts every key of two quick re-keys: the key in between, never read by a stats pass, too (issue 33)', async () => {
    // The frames a real agent sends (agent/src/reconcile.ts): a re-keyed key is retired, and the
    // next stats pass sends the retired keys' last counters first (with `since`, the counters of
    // the pass before, when a pass had seen the key), then its report with the new key.
    const c = await createCustomer(t);
    const peer = await grantPeer(t, owner, { username: c.username, plan: planId, server: a.id });
    const k1 = peer.publicKey;
    await report(a.id, k1, 100, 100);
    const keyNow = async () =>
      (await t.ctx.db.select().from(peers).where(eq(peers.id, peer.id)))[0]!.publicKey;
    await t.ctx.peers.regenerate(c.id, peer.id);
    const k2 = await keyNow();
    // The agent acked the first re-key at once (the peer is no longer busy): the customer re-keys again.
    await t.ctx.db
      .update(peers)
      .set({ pendingOperation: null, pendingRevision: null })
      .where(eq(peers.id, peer.id));
    await t.ctx.peers.regenerate(c.id, peer.id);
    const k3 = await keyNow();
    expect(new Set([k1, k2, k3]).size).toBe(3);
    // Both re-keys within one stats interval: the pass reads K1 (seen before) and K2 (never seen,
    // its counters from zero: the device used it for a few seconds) as last readings.
    await recordStats(t.ctx.db, a.id, [
      {
        public_key: k1,
        rx_bytes: 300,
        tx_bytes: 150,
        latest_handshake: 0,
        endpoint: null,
        final: true,
        since: { rx_bytes: 100, tx_bytes: 100 },
      },
      { public_key: k2, rx_bytes: 600, tx_bytes: 400, latest_handshake: 0, endpoint: null, final: true },
    ]);
    await report(a.id, k3, 10, 10);
    // 200 before, 250 of K1's tail, all 1,000 of K2, 20 of K3.
    expect(await counted(peer.id)).toBe(1470);
    // A repeated last reading of K2 (a repair re-reading a key it could not delete) is not counted again.
    await recordStats(t.ctx.db, a.id, [
      { public_key: k2, rx_bytes: 650, tx_bytes: 400, latest_handshake: 0, endpoint: null, final: true },
    ]);
    expect(await counted(peer.id)).toBe(1470);
  });

  it('counts every key of three quick re-keys: each departure is kept until its last reading (issue 33)', async () => {
    // As above, one re-key more: K2 and K3 were both on the interface only between two passes.
    // Each re-key records its old key's departure; only the latest per peer and server was kept,
    // so K2's last reading found no departure (K3's had replaced it) and its bytes were lost.
    const c = await createCustomer(t);
    const peer = await grantPeer(t, owner, { username: c.username, plan: planId, server: a.id });
    // With a data allowance: what is counted is also what its allowance is charged.
    await t.ctx.db.update(peers).set({ dataAllowance: 10_000_000 }).where(eq(peers.id, peer.id));
    const keys = [peer.publicKey];
    await report(a.id, keys[0]!, 100, 100);
    for (let i = 0; i < 3; i++) {
      // The agent acked each re-key at once (no longer busy): the customer re-keys again.
      await t.ctx.db
        .update(peers)
        .set({ pendingOperation: null, pendingRevision: null })
        .where(eq(peers.id, peer.id));
      await t.ctx.peers.regenerate(c.id, peer.id);
      keys.push((await t.ctx.db.select().from(peers).where(eq(peers.id, peer.id)))[0]!.publicKey);
    }
    const [k1, k2, k3, k4] = keys as [string, string, string, string];
    expect(new Set(keys).size).toBe(4);
    // The next pass: the retired keys' last readings first, in retirement order (reconcile.ts's
    // onFinalStats frame), K1 with the counters of the pass before; then the report of K4.
    const last = (key: string, rx: number, tx: number) => ({
      public_key: key,
      rx_bytes: rx,
      tx_bytes: tx,
      latest_handshake: 0,
      endpoint: null,
      final: true as const,
    });
    await recordStats(t.ctx.db, a.id, [
      { ...last(k1, 300, 150), since: { rx_bytes: 100, tx_bytes: 100 } },
      last(k2, 600, 400),
      last(k3, 70, 30),
    ]);
    await report(a.id, k4, 10, 10);
    // 200 before, 250 of K1's tail, all 1,000 of K2 and 100 of K3, 20 of K4.
    expect(await counted(peer.id)).toBe(1570);
    const charged = async () =>
      (await t.ctx.db.select().from(peers).where(eq(peers.id, peer.id)))[0]!.dataUsed;
    expect(await charged()).toBe(1570);
    // Each departure counted once: the same last readings again add nothing, and none is left.
    await recordStats(t.ctx.db, a.id, [last(k2, 650, 400), last(k3, 90, 30)]);
    expect(await counted(peer.id)).toBe(1570);
    expect(await charged()).toBe(1570);
    const left = await t.ctx.db.select().from(peerDepartures).where(eq(peerDepartures.peerId, peer.id));
    expect(left).toEqual([]);
  });

  it("counts a key's reading that reaches the panel after the key was re-keyed away, before any was stored (issue 33)", async () => {
    // K2's first report was read by a pass just before the agent got the second re-key, and was
    // stored after that re-key's commit: K2 was no longer the peer's key, no reading of K2 stored.
    const c = await createCustomer(t);
    const peer = await grantPeer(t, owner, { username: c.username, plan: planId, server: a.id });
    const k1 = peer.publicKey;
    await report(a.id, k1, 100, 100);
    const rekey = async () => {
      await t.ctx.db
        .update(peers)
        .set({ pendingOperation: null, pendingRevision: null })
        .where(eq(peers.id, peer.id));
      await t.ctx.peers.regenerate(c.id, peer.id);
      return (await t.ctx.db.select().from(peers).where(eq(peers.id, peer.id)))[0]!.publicKey;
    };
    const k2 = await rekey();
    const last = { latest_handshake: 0, endpoint: null, final: true as const };
    await recordStats(t.ctx.db, a.id, [
      { public_key: k1, rx_bytes: 300, tx_bytes: 150, ...last, since: { rx_bytes: 100, tx_bytes: 100 } },
    ]);
    const k3 = await rekey();
    await report(a.id, k2, 600, 400);
    // The next pass: K2's last reading, `since` the counters of the pass above; then K3.
    await recordStats(t.ctx.db, a.id, [
      { public_key: k2, rx_bytes: 650, tx_bytes: 420, ...last, since: { rx_bytes: 600, tx_bytes: 400 } },
    ]);
    await report(a.id, k3, 10, 10);
    // 200 before, 250 of K1's tail, 1,000 + 70 of K2, 20 of K3.
    expect(await counted(peer.id)).toBe(1540);
    // Counted once: the same reading again adds nothing.
    await report(a.id, k2, 600, 400);
    expect(await counted(peer.id)).toBe(1540);
  });

  it('keeps at most 16 departures per peer and server, the latest (a node that never sends its last readings)', async () => {
    const c = await createCustomer(t);
    const peer = await grantPeer(t, owner, { username: c.username, plan: planId, server: a.id });
    const left: string[] = [];
    for (let i = 0; i < 20; i++) {
      left.push((await t.ctx.db.select().from(peers).where(eq(peers.id, peer.id)))[0]!.publicKey);
      await t.ctx.db
        .update(peers)
        .set({ pendingOperation: null, pendingRevision: null })
        .where(eq(peers.id, peer.id));
      await t.ctx.peers.regenerate(c.id, peer.id);
    }
    const kept = await t.ctx.db.select().from(peerDepartures).where(eq(peerDepartures.peerId, peer.id));
    expect(kept.map((d) => d.publicKey).sort()).toEqual(left.slice(-16).sort());
    // A week on, the hourly compaction forgets them: a last reading that never came.
    await t.ctx.db.execute(
      sql`update peer_departures set left_at = now() - interval '8 days' where peer_id = ${peer.id} and public_key = ${left[4]!}`,
    );
    await compactUsage(t.ctx.db);
    const after = await t.ctx.db.select().from(peerDepartures).where(eq(peerDepartures.peerId, peer.id));
    expect(after.map((d) => d.publicKey).sort()).toEqual(
      left
        .slice(-16)
        .filter((k) => k !== left[4])
        .sort(),
    );
  });

  it("counts a moved peer's last report from its old server when the new server reported first (issue 24)", async () => {
    // The old server reports a leaving key at its next stats pass, up to 10 s later: by then the
    // new server may have reported the key, and the stored reading is the new server's.
    const c = await createCustomer(t);
    const peer = await grantPeer(t, owner, { username: c.username, plan: planId, server: a.id });
    await report(a.id, peer.publicKey, 1000, 2000);
    await move(peer.id, b.id);
    await report(b.id, peer.publicKey, 40, 60);
    expect(await counted(peer.id)).toBe(3100);
    const final = {
      public_key: peer.publicKey,
      rx_bytes: 1500,
      tx_bytes: 2100,
      latest_handshake: 0,
      endpoint: null,
    };
    await recordStats(t.ctx.db, a.id, [{ ...final, since: { rx_bytes: 1000, tx_bytes: 2000 } }]);
    expect(await counted(peer.id)).toBe(3700);
    // The new server's reading stays the baseline of its next report.
    await report(b.id, peer.publicKey, 140, 60);
    expect(await counted(peer.id)).toBe(3800);
    // Without the agent's previous counters there is nothing to count against: not counted.
    await recordStats(t.ctx.db, a.id, [{ ...final, rx_bytes: 9000 }]);
    expect(await counted(peer.id)).toBe(3800);
  });

  it('counts a last report once when the server still holds its own reading of the key', async () => {
    const c = await createCustomer(t);
    const peer = await grantPeer(t, owner, { username: c.username, plan: planId, server: a.id });
    await report(a.id, peer.publicKey, 100, 100);
    await move(peer.id, b.id);
    const final = {
      public_key: peer.publicKey,
      rx_bytes: 300,
      tx_bytes: 150,
      latest_handshake: 0,
      endpoint: null,
    };
    await recordStats(t.ctx.db, a.id, [{ ...final, since: { rx_bytes: 100, tx_bytes: 100 } }]);
    expect(await counted(peer.id)).toBe(450);
  });

  it("never counts a last report from a server the key never left: a node cannot raise another peer's data (issue 31)", async () => {
    const c = await createCustomer(t);
    const peer = await grantPeer(t, owner, { username: c.username, plan: planId, server: a.id });
    await t.ctx.db
      .update(peers)
      .set({ dataAllowance: 10 * 1024 ** 3 })
      .where(eq(peers.id, peer.id));
    await report(a.id, peer.publicKey, 1000, 2000);
    await move(peer.id, b.id);
    await report(b.id, peer.publicKey, 40, 60);
    const used = async () =>
      Number((await t.ctx.db.select().from(peers).where(eq(peers.id, peer.id)))[0]!.dataUsed);
    const before = { counted: await counted(peer.id), used: await used() };
    // A third node, where this peer never was, names its key with a tail of 5 GB.
    const c3 = await createServer(t, owner, 'ColaC');
    const forged = {
      public_key: peer.publicKey,
      rx_bytes: 5 * 1024 ** 3,
      tx_bytes: 0,
      latest_handshake: 0,
      endpoint: null,
      since: { rx_bytes: 0, tx_bytes: 0 },
    };
    await recordStats(t.ctx.db, c3.id, [forged]);
    expect(await counted(peer.id)).toBe(before.counted);
    expect(await used()).toBe(before.used);
    // The server it did leave still gets its tail counted.
    await recordStats(t.ctx.db, a.id, [
      { ...forged, rx_bytes: 1500, tx_bytes: 2100, since: { rx_bytes: 1000, tx_bytes: 2000 } },
    ]);
    expect(await counted(peer.id)).toBe(before.counted + 600);
    expect(await used()).toBe(before.used + 600);
  });

  it('never counts a key the server never reported for that peer', async () => {
    const c = await createCustomer(t);
    const peer = await grantPeer(t, owner, { username: c.username, plan: planId, server: a.id });
    await report(b.id, peer.publicKey, 5000, 5000);
    expect(await counted(peer.id)).toBe(0);
  });
});
