import type { PublicSettings } from '@vpn/contracts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { getSiteSettings, toPublicSettings } from '../site/settings.ts';
import type { TelegramService } from './service.ts';

/**
 * How a customer can recover a forgotten password (issue 32): by e-mail (the site allows e-mail,
 * SMTP_URL and PUBLIC_URL are set) or by the Telegram chat linked to the account (a bot is running
 * and PUBLIC_URL is set: the link in the message is built from it, never from a request's Host).
 */
export interface RecoveryChannels {
  email: boolean;
  telegram: boolean;
}

interface Deps {
  db: Db;
  config: Pick<Config, 'mail' | 'publicUrl'>;
  telegram: TelegramService;
}

export async function recoveryChannels({ db, config, telegram }: Deps): Promise<RecoveryChannels> {
  const site = await getSiteSettings(db);
  return {
    email: site.allow_email && config.mail !== null,
    telegram: config.publicUrl !== undefined && telegram.running,
  };
}

/**
 * The public settings customers see: `allow_password_recovery` is on only while the switch is on
 * and a channel can carry a reset link, so the login's "¿Olvidaste tu contraseña?" never leads to
 * a page that sends nothing (the console flags the switch then).
 */
export async function customerPublicSettings(deps: Deps): Promise<PublicSettings> {
  const settings = toPublicSettings(await getSiteSettings(deps.db));
  if (!settings.allow_password_recovery) return settings;
  const channels = await recoveryChannels(deps);
  return { ...settings, allow_password_recovery: channels.email || channels.telegram };
}
