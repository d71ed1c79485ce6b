import type { AgentHub } from './agents/hub.ts';
import type { Config } from './config.ts';
import type { Database, Db } from './db/client.ts';
import type { Keys } from './lib/crypto.ts';
import type { Bus } from './realtime/bus.ts';
import type { SocketRegistry } from './realtime/sockets.ts';
import type { CaptchaService } from './services/identity/captcha.ts';
import type { PeerService } from './services/peers/peers.ts';
import type { RoomService } from './services/rooms/rooms.ts';
import type { InvoiceService } from './services/billing/invoices.ts';
import type { LoginThrottle } from './services/identity/loginThrottle.ts';
import type { RateLimitPolicy } from './services/identity/rateLimit.ts';
import type { SessionService } from './services/identity/sessions.ts';
import type { AccountService } from './services/identity/account.ts';
import type { Mailer } from './services/site/mailer.ts';
import type { GatewayCredentials } from './services/billing/gatewayCredentials.ts';
import type { AllowanceService } from './services/peers/allowance.ts';
import type { AgentRelease } from './services/fleet/agentRelease.ts';
import type { ConcurrentUseService } from './services/peers/concurrentUse.ts';
import type { ReminderService } from './services/billing/reminders.ts';
import type { TelegramService } from './services/telegram/service.ts';

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
  rooms: RoomService;
  invoices: InvoiceService;
  /** Customers' login limits. */
  loginThrottle: LoginThrottle;
  /** Managers' login limits (wrong codes included, and guesses at DELETE /api/admin/me/totp). */
  managerLoginThrottle: LoginThrottle;
  /** Renewal reminder mails (run by the scheduler). */
  reminders: ReminderService;
  /** Data allowances: the 80 % notice and the switch-off at 100 % (run by the scheduler). */
  allowances: AllowanceService;
  /** Payment-gateway credentials in force (Ajustes, else the environment). */
  gatewayCredentials: GatewayCredentials;
  /** The agent file VPN servers install and upgrade to (version, SHA-256, bytes). */
  agentRelease: AgentRelease;
  /**
   * Peers in use on more than one device (issue 19): agents' reports, the Ajustes policy, and
   * `onDetected`, the hook other notices (Telegram) subscribe to.
   */
  concurrentUse: ConcurrentUseService;
  /** The Telegram bot: links, commands, notices and alerts (off without a token). */
  telegram: TelegramService;
}
