/**
 * PeerService, the one object routes, payments, rooms, agents and the scheduler use for peers. Split
 * by what it does into a chain of classes, each in its own file (issue 18):
 *   presentation.ts (PeerView) ← operations.ts ← keys.ts ← moves.ts ← creation.ts ← expiry.ts.
 * Every path that changes a peer (the customer's, a payment's, a manager's) still shares one flow —
 * desired-state change, agent acks, the owner's pushes — from operations.ts.
 */
import { PeerExpiry } from './expiry.ts';

/** Everything a customer (and a manager) can do to peers; every lookup goes through the owner. */
export class PeerService extends PeerExpiry {}
