import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import type { Keys } from '../../lib/crypto.ts';
import type { Bus } from '../../realtime/bus.ts';
import type { Mailer } from '../site/mailer.ts';
import { AllowanceService } from './allowance.ts';
import { ConcurrentUseService } from './concurrentUse.ts';
import { mailNotices } from './notices.ts';
import { PeerService } from './peers.ts';

/** The peers domain's entry point: peers, data allowances and concurrent use. */
export interface PeersDeps {
  config: Pick<Config, 'publicUrl' | 'companyName'>;
  db: Db;
  bus: Bus;
  keys: Keys;
  mailer: Mailer;
  log: FastifyBaseLogger;
}

export interface Peers {
  peers: PeerService;
  /** Data allowances: the 80 % notice and the switch-off at 100 % (run by the scheduler). */
  allowances: AllowanceService;
  /** Peers in use on more than one device (issue 19). */
  concurrentUse: ConcurrentUseService;
  /** Mails a batch of the notices owed after bulk actions (run by the scheduler). */
  mailNotices: () => Promise<number>;
}

export function createPeers(deps: PeersDeps): Peers {
  const { config, db, bus, keys, mailer, log } = deps;
  const peers = new PeerService({ db, encryptionKey: keys.encryption, bus, publicUrl: config.publicUrl });
  return {
    peers,
    allowances: new AllowanceService({ db, mailer, companyName: config.companyName, log, peers }),
    concurrentUse: new ConcurrentUseService({ db, bus, peers, log }),
    mailNotices: () => mailNotices({ db, mailer, companyName: config.companyName }),
  };
}
