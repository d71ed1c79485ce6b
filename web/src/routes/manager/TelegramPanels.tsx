/**
 * Telegram in the console: Seguridad's "Alertas por Telegram" (the signed-in manager links a chat
 * with a one-time t.me link; owner and operations with two-factor on — the server refuses the
 * rest with its reason) and Ajustes' bot token (owner: saved encrypted, never shown again).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Send } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import toast from 'react-hot-toast';
import { errorMessage } from '../../api/http';
import {
  managerTelegram,
  managerTelegramLink,
  managerTelegramUnlink,
  saveTelegramToken,
  telegramBot,
  telegramKeys,
} from '../../api/telegram';
import { TextField } from '../../components/Field';
import { useTelegramLink } from '../../components/TelegramLink';
import { ui } from '../../components/ui';
import { esManager } from '../../i18n/es.manager';
import { esTelegram } from '../../i18n/es.telegram';
import { esTelegramManager } from '../../i18n/es.telegram.manager';
import { QueryView, StateBadge } from './shared';

const onError = (error: unknown) => void toast.error(errorMessage(error, esManager.requestError));

export function SecurityTelegram({ totpEnabled }: { totpEnabled: boolean }) {
  const t = esTelegramManager.manager;
  const c = esTelegram.customer;
  const status = useQuery({
    queryKey: telegramKeys.manager,
    queryFn: ({ signal }) => managerTelegram(signal),
  });
  const linking = useTelegramLink({
    status,
    key: telegramKeys.manager,
    link: managerTelegramLink,
    unlink: managerTelegramUnlink,
    onError,
    canLink: totpEnabled,
  });
  return (
    <div className={`${ui.card} mt-6 max-w-2xl p-6`}>
      <h2 className="flex items-center gap-2 text-lg font-semibold text-white">
        <Send className="size-5 text-sky-300" aria-hidden="true" />
        {t.title}
      </h2>
      <p className="mt-1 text-sm text-slate-400">{t.hint}</p>
      <QueryView query={status}>
        {(s) => (
          <div className="mt-4 space-y-3">
            <p className="text-slate-300">
              {!s.available && !s.linked ? c.unavailable : s.linked ? t.linked : t.notLinked}
            </p>
            {!totpEnabled && !s.linked && <p className="text-sm text-amber-300">{t.needsTotp}</p>}
            {linking.opened('text-sm text-slate-400')}
            <div className="flex flex-wrap gap-2">{linking.button}</div>
          </div>
        )}
      </QueryView>
    </div>
  );
}

export function SettingsTelegram() {
  const t = esTelegramManager.bot;
  const queryClient = useQueryClient();
  const bot = useQuery({ queryKey: telegramKeys.bot, queryFn: ({ signal }) => telegramBot(signal) });
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: saveTelegramToken,
    onSuccess: (answer, sent) => {
      queryClient.setQueryData(telegramKeys.bot, answer);
      void queryClient.invalidateQueries({ queryKey: telegramKeys.manager });
      setToken('');
      toast.success(sent === null ? t.forgotten : t.saved);
    },
    onError: (e) => setError(errorMessage(e, esManager.requestError)),
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    if (!token.trim()) return setError(t.required);
    setError(null);
    save.mutate(token.trim());
  }
  return (
    <section className="mt-8" aria-labelledby="telegram-bot-title">
      <h2 id="telegram-bot-title" className="text-lg font-semibold text-white">
        {t.title}
      </h2>
      <p className="mb-4 text-sm text-slate-400">{t.subtitle}</p>
      <QueryView query={bot}>
        {(data) => (
          <div className={`${ui.card} max-w-2xl p-5`}>
            <div className="flex flex-wrap items-center gap-2">
              <StateBadge ok={data.source !== 'none'}>{t.source[data.source]}</StateBadge>
              {data.bot && <StateBadge ok>{t.bot(data.bot)}</StateBadge>}
            </div>
            <p className="mt-2 text-sm text-slate-400">{data.webhook ? t.webhook : t.polling}</p>
            <form className="mt-4 space-y-3" onSubmit={submit} aria-label={t.save}>
              <TextField
                label={t.token}
                type="password"
                autoComplete="off"
                value={token}
                disabled={save.isPending}
                hint={t.tokenHint}
                onChange={(e) => setToken(e.target.value)}
              />
              {error && (
                <p role="alert" className="text-sm text-rose-300">
                  {error}
                </p>
              )}
              <div className="flex flex-wrap gap-2">
                <button type="submit" className={ui.buttonPrimary} disabled={save.isPending}>
                  {t.save}
                </button>
                {data.source === 'console' && (
                  <button
                    type="button"
                    className={ui.buttonSecondary}
                    disabled={save.isPending}
                    onClick={() => save.mutate(null)}
                  >
                    {t.forget}
                  </button>
                )}
              </div>
            </form>
          </div>
        )}
      </QueryView>
    </section>
  );
}
