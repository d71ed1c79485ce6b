import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import type { Keys } from '../../lib/crypto.ts';
import type { InvoiceService } from '../billing/invoices.ts';
import type { PeerService } from '../peers/peers.ts';
import { supportUrlOfSite } from '../site/links.ts';
import { TelegramService } from './service.ts';

/** The Telegram domain's entry point: the bot, its links, commands, notices and alerts. */
export interface TelegramDomainDeps {
  config: Pick<Config, 'telegram' | 'publicUrl' | 'companyName' | 'supportUrl'>;
  db: Db;
  keys: Keys;
  peers: PeerService;
  invoices: InvoiceService;
  log: FastifyBaseLogger;
  /** Send the scheduled notices (off when the app runs without its scheduler: tests). */
  notices: boolean;
}

export interface Telegram {
  /** The Telegram bot (off without a token). */
  telegram: TelegramService;
}

export function createTelegram(deps: TelegramDomainDeps): Telegram {
  const { config, db, keys, peers, invoices, log, notices } = deps;
  return {
    telegram: new TelegramService({
      db,
      encryptionKey: keys.encryption,
      telegram: config.telegram,
      publicUrl: config.publicUrl,
      companyName: config.companyName,
      supportUrl: () => supportUrlOfSite(db, config.supportUrl),
      peers,
      createInvoice: (customerId, body) => invoices.create(customerId, body),
      log,
      notices,
    }),
  };
}
