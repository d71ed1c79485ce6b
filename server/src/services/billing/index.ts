import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import type { Keys } from '../../lib/crypto.ts';
import type { Bus } from '../../realtime/bus.ts';
import type { PeerService } from '../peers/peers.ts';
import type { Mailer } from '../site/mailer.ts';
import { GatewayCredentials } from './gatewayCredentials.ts';
import { QvaPayGateway, RemesitaGateway, SandboxGateway } from './gateways.ts';
import { InvoiceService } from './invoices.ts';
import { ReminderService } from './reminders.ts';

/**
 * The billing domain's entry point: the gateway credentials in force, invoices (with the gateways
 * built from those credentials) and renewal reminders. The invoice, plan and refund consoles are
 * built per use by their routes.
 */
export interface BillingDeps {
  config: Pick<Config, 'payments' | 'publicUrl' | 'companyName'>;
  db: Db;
  bus: Bus;
  keys: Keys;
  mailer: Mailer;
  peers: PeerService;
  log: FastifyBaseLogger;
}

export interface Billing {
  /** Payment-gateway credentials in force (Ajustes, else the environment). */
  gatewayCredentials: GatewayCredentials;
  invoices: InvoiceService;
  /** Renewal reminder mails (run by the scheduler). */
  reminders: ReminderService;
}

export function createBilling(deps: BillingDeps): Billing {
  const { config, db, bus, keys, mailer, peers, log } = deps;
  const gatewayCredentials = new GatewayCredentials({
    db,
    bus,
    encryptionKey: keys.encryption,
    env: { qvapay: config.payments.qvapay, remesita: config.payments.remesita },
  });
  const invoices = new InvoiceService({
    db,
    bus,
    peers,
    // Built per use from the credentials in force, so a change in Ajustes applies at once.
    qvapay: async () => {
      const creds = await gatewayCredentials.qvapay();
      return creds ? new QvaPayGateway({ ...creds, apiUrl: config.payments.qvapayApiUrl }) : null;
    },
    // Remesita is handed our notification URL: it needs PUBLIC_URL (never the request's Host).
    remesita: async () => {
      const creds = await gatewayCredentials.remesita();
      if (!creds || !config.publicUrl) return null;
      return new RemesitaGateway({
        ...creds,
        baseUrl: creds.baseUrl ?? config.payments.remesitaBaseUrl,
        publicUrl: config.publicUrl,
        sandbox: config.payments.remesitaSandbox,
      });
    },
    sandbox: config.payments.sandbox ? new SandboxGateway(config.publicUrl) : null,
    log,
  });
  return {
    gatewayCredentials,
    invoices,
    reminders: new ReminderService({ db, mailer, companyName: config.companyName, log }),
  };
}
