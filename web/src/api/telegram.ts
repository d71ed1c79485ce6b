/**
 * Telegram calls: a customer's link and notification switches (`/api/client/telegram`), a
 * manager's own link (`/api/admin/me/telegram`) and the bot token in Ajustes
 * (`/api/admin/settings/telegram`, owner). Only the Settings and console pieces that show Telegram
 * import this module, so the customers' first pages do not carry it.
 */
import type { TelegramBotSettings, TelegramLink, TelegramPrefsPatch, TelegramStatus } from '@vpn/contracts';
import { authRequest } from './session';

export type { TelegramBotSettings, TelegramLink, TelegramPrefs, TelegramStatus } from '@vpn/contracts';

const schemas = () => import('@vpn/contracts');

export const telegramKeys = {
  customer: ['telegram'] as const,
  manager: ['manager', 'telegram'] as const,
  bot: ['manager', 'telegram', 'bot'] as const,
};

export async function customerTelegram(signal?: AbortSignal): Promise<TelegramStatus> {
  return authRequest('client', '/api/client/telegram', { signal }, (await schemas()).TelegramStatus);
}

/** A one-time `t.me/<bot>?start=<code>` link (10 minutes). */
export async function customerTelegramLink(): Promise<TelegramLink> {
  return authRequest(
    'client',
    '/api/client/telegram/link',
    { method: 'POST' },
    (await schemas()).TelegramLink,
  );
}

export async function customerTelegramPrefs(body: TelegramPrefsPatch): Promise<TelegramStatus> {
  return authRequest(
    'client',
    '/api/client/telegram',
    { method: 'PATCH', body },
    (await schemas()).TelegramStatus,
  );
}

export async function customerTelegramUnlink(): Promise<TelegramStatus> {
  return authRequest(
    'client',
    '/api/client/telegram',
    { method: 'DELETE' },
    (await schemas()).TelegramStatus,
  );
}

export function managerTelegram(signal?: AbortSignal): Promise<TelegramStatus> {
  return authRequest<TelegramStatus>('manager', '/api/admin/me/telegram', { signal });
}

export function managerTelegramLink(): Promise<TelegramLink> {
  return authRequest<TelegramLink>('manager', '/api/admin/me/telegram/link', { method: 'POST' });
}

export function managerTelegramUnlink(): Promise<TelegramStatus> {
  return authRequest<TelegramStatus>('manager', '/api/admin/me/telegram', { method: 'DELETE' });
}

export function telegramBot(signal?: AbortSignal): Promise<TelegramBotSettings> {
  return authRequest<TelegramBotSettings>('manager', '/api/admin/settings/telegram', { signal });
}

export function saveTelegramToken(token: string | null): Promise<TelegramBotSettings> {
  return authRequest<TelegramBotSettings>('manager', '/api/admin/settings/telegram', {
    method: 'PUT',
    body: { token },
  });
}
