import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import toast from 'react-hot-toast';
import { adminKeys, linksQuery, patchLinks } from '../../api/admin';
import { errorMessage } from '../../api/http';
import { ui } from '../../components/ui';
import { esManager } from '../../i18n/es.manager';
import { formatDataSize } from '../../lib/format';

const t = esManager.settings.links;

/**
 * Ajustes → Enlaces para clientes (issue 32): the support link (wins over SUPPORT_URL; empty, no
 * support block is shown to customers) and the Android app's link, and the APK the panel serves.
 * The server checks the links (https, tg, whatsapp) and answers why it refuses one.
 */
export function SettingsLinks({ disabled }: { disabled: boolean }) {
  const id = useId();
  const queryClient = useQueryClient();
  const links = useQuery(linksQuery());
  const [support, setSupport] = useState('');
  const [android, setAndroid] = useState('');
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setSupport(links.data?.support_url ?? '');
    setAndroid(links.data?.android_app_url ?? '');
  }, [links.data]);
  const save = useMutation({
    mutationFn: () =>
      patchLinks({ support_url: support.trim() || null, android_app_url: android.trim() || null }),
    onSuccess: (answer) => {
      queryClient.setQueryData(adminKeys.links, answer);
      setError(null);
      toast.success(t.saved);
    },
    onError: (err) => setError(errorMessage(err, esManager.requestError)),
  });
  if (!links.data) return null;
  return (
    <form
      className={`${ui.card} mt-4 space-y-4 px-5 py-4`}
      aria-labelledby={`${id}-title`}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <div>
        <h2 id={`${id}-title`} className="font-medium text-white">
          {t.title}
        </h2>
        <p className="mt-1 text-sm text-slate-400">{t.hint}</p>
      </div>
      {error && (
        <p role="alert" className="text-sm text-red-300">
          {error}
        </p>
      )}
      <div>
        <label htmlFor={`${id}-support`} className={ui.label}>
          {t.support}
        </label>
        <input
          id={`${id}-support`}
          type="url"
          inputMode="url"
          className={ui.input}
          value={support}
          disabled={disabled}
          placeholder={links.data.support_url_env ?? 'https://t.me/tu_soporte'}
          aria-describedby={`${id}-support-hint`}
          onChange={(e) => setSupport(e.target.value)}
        />
        <p id={`${id}-support-hint`} className="mt-1.5 text-xs text-slate-400">
          {t.supportHint(links.data.support_url_env)}
        </p>
      </div>
      <div>
        <label htmlFor={`${id}-android`} className={ui.label}>
          {t.android}
        </label>
        <input
          id={`${id}-android`}
          type="url"
          inputMode="url"
          className={ui.input}
          value={android}
          disabled={disabled}
          aria-describedby={`${id}-android-hint`}
          onChange={(e) => setAndroid(e.target.value)}
        />
        <p id={`${id}-android-hint`} className="mt-1.5 text-xs text-slate-400">
          {t.androidHint}{' '}
          {links.data.android_apk ? t.apk(formatDataSize(links.data.android_apk.size)) : t.noApk}
        </p>
      </div>
      {!disabled && (
        <button type="submit" className={ui.buttonPrimary} disabled={save.isPending}>
          {t.save}
        </button>
      )}
    </form>
  );
}
