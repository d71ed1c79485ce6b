/**
 * Settings → Telegram (lazy: its texts and calls load only when Settings opens). "Vincular Telegram"
 * asks for a one-time t.me link (10 minutes, single use) and opens it; the bot confirms in the chat.
 * Once linked: "Desvincular" and one switch per notification.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Send } from 'lucide-react';
import toast from 'react-hot-toast';
import { errorMessage } from '../../api/http';
import {
  customerTelegram,
  customerTelegramLink,
  customerTelegramPrefs,
  customerTelegramUnlink,
  telegramKeys,
  type TelegramPrefs,
} from '../../api/telegram';
import { useTelegramLink } from '../../components/TelegramLink';
import { ui } from '../../components/ui';
import { es } from '../../i18n/es';
import { esTelegram } from '../../i18n/es.telegram';

const t = esTelegram.customer;
const PREFS = Object.keys(t.prefs) as (keyof TelegramPrefs)[];

export default function TelegramSettings() {
  const queryClient = useQueryClient();
  const status = useQuery({
    queryKey: telegramKeys.customer,
    queryFn: ({ signal }) => customerTelegram(signal),
  });
  const onError = (error: unknown) => void toast.error(errorMessage(error, es.common.requestError));
  const linking = useTelegramLink({
    status,
    key: telegramKeys.customer,
    link: customerTelegramLink,
    unlink: customerTelegramUnlink,
    onError,
  });
  const prefs = useMutation({
    mutationFn: customerTelegramPrefs,
    onSuccess: (answer) => {
      queryClient.setQueryData(telegramKeys.customer, answer);
      toast.success(t.saved);
    },
    onError,
  });

  const s = status.data;
  if (!s) return null;
  return (
    <section className={`${ui.card} mt-6 px-6 py-5`} aria-labelledby="telegram-title">
      <div className="flex flex-col gap-4 sm:flex-row sm:items-center">
        <Send className="hidden size-5 shrink-0 text-slate-400 sm:block" aria-hidden="true" />
        <div className="min-w-0 flex-1">
          <h2 id="telegram-title" className="text-sm font-medium text-slate-400">
            {t.title}
          </h2>
          <p className="mt-0.5 text-slate-100">
            {!s.available && !s.linked ? t.unavailable : s.linked ? t.hintOn : t.hintOff}
          </p>
          {linking.opened('mt-1 text-xs text-slate-400')}
        </div>
        <div className="flex flex-wrap items-center gap-2">{linking.button}</div>
      </div>
      {s.linked && s.prefs && (
        <fieldset className="mt-4 border-t border-slate-800 pt-4">
          <legend className="sr-only">{t.notificationsTitle}</legend>
          <p className="mb-2 text-sm font-medium text-slate-400">{t.notificationsTitle}</p>
          <ul className="grid gap-2 sm:grid-cols-2">
            {PREFS.map((key) => (
              <li key={key}>
                <label className="flex items-center gap-2 text-sm text-slate-200">
                  <input
                    type="checkbox"
                    className="size-4 accent-emerald-500"
                    checked={s.prefs![key]}
                    disabled={prefs.isPending}
                    onChange={(e) => prefs.mutate({ [key]: e.target.checked })}
                  />
                  {t.prefs[key]}
                </label>
              </li>
            ))}
          </ul>
        </fieldset>
      )}
    </section>
  );
}
