/**
 * New keys: the customer's regenerate and a new mirror link.
 */
import { eq, sql } from 'drizzle-orm';
import { msg, type Peer } from '@vpn/contracts';
import { peers } from '../../db/schema.ts';
import { encrypt, generatePresharedKey, generateWireguardKeyPair } from '../../lib/crypto.ts';
import { badRequest } from '../../lib/errors.ts';
import { recordChanges } from '../fleet/desiredState.ts';
import { newMirrorToken } from './mirrorTokens.ts';
import { recordDepartures } from './departures.ts';
import { CLEARED as CONCURRENT_USE_CLEARED } from './concurrentUseFields.ts';
import { mirrorColumns, isLive } from './presentation.ts';
import { PeerOperations } from './operations.ts';

export class PeerKeys extends PeerOperations {
  /** New mirror token: the old URL stops working at once. */
  async regenerateMirror(customerId: number, peerId: number, origin?: string): Promise<Peer> {
    const row = await this.getOwned(customerId, peerId);
    if (!isLive(row)) throw badRequest(msg.peerInactive);
    await this.db
      .update(peers)
      .set({ ...mirrorColumns(newMirrorToken(this.deps.encryptionKey)), updatedAt: sql`now()` })
      .where(eq(peers.id, row.id));
    return this.presentOne(row.id, origin);
  }

  /** New key pair and preshared key; the address stays. Asynchronous: the peer is busy until the agent acks. */
  async regenerate(customerId: number, peerId: number, origin?: string): Promise<Peer> {
    const keys = generateWireguardKeyPair();
    const done = await this.db.transaction(async (tx) => {
      // The customer's own peer, locked: the ownership check is the lock's (issue 33).
      const row = await this.lock(tx, peerId, customerId);
      this.assertActionable(row);
      // The old key left this server: its last report counts even once a newer key replaced it
      // (two re-keys within one stats interval, issue 33: services/peers/usage.ts).
      await recordDepartures(tx, row.serverId, [row]);
      const revisions = await recordChanges(tx, [
        { serverId: row.serverId, upsertPeerIds: [row.id], removeKeys: [row.publicKey] },
      ]);
      // The new keys, written with the busy state in claim's one update.
      return this.claim(tx, row, 'regenerate', revisions, origin, {
        publicKey: keys.publicKey,
        privateKeyEnc: encrypt(this.deps.encryptionKey, keys.privateKey),
        presharedKeyEnc: encrypt(this.deps.encryptionKey, generatePresharedKey()),
        // New keys: the devices sharing the old ones are cut off, so the flag ends now (issue 19).
        ...CONCURRENT_USE_CLEARED,
        updatedAt: sql`now()`,
      });
    });
    return this.afterChange(done, origin);
  }
}
