import type { AgentHub } from './agents/hub.ts';
import type { Config } from './config.ts';
import type { Database, Db } from './db/client.ts';
import type { Keys } from './lib/crypto.ts';
import type { Bus } from './realtime/bus.ts';
import type { SocketRegistry } from './realtime/sockets.ts';
import type { CaptchaService } from './services/captcha.ts';
import type { PeerService } from './services/peers.ts';
import type { PartyService } from './services/parties.ts';
import type { InvoiceService } from './services/invoices.ts';
import type { RateLimitPolicy } from './services/rateLimit.ts';
import type { SessionService } from './services/sessions.ts';
import type { AccountService } from './services/account.ts';
import type { Mailer } from './services/mailer.ts';

/** What route modules and services are built from; app.ts assembles it once. */
export interface AppContext {
  config: Config;
  database: Database;
  db: Db;
  keys: Keys;
  sessions: SessionService;
  captcha: CaptchaService;
  rateLimits: RateLimitPolicy;
  bus: Bus;
  peers: PeerService;
  agents: AgentHub;
  sockets: SocketRegistry;
  mailer: Mailer;
  account: AccountService;
  parties: PartyService;
  invoices: InvoiceService;
}
