import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { TriangleAlert } from 'lucide-react';
import { useEffect, useId, useState } from 'react';
import toast from 'react-hot-toast';
import { ROOM_MEMBER_LIMIT } from '@vpn/contracts/limits';
import { adminKeys, linksQuery, patchSettings, settingsQuery } from '../../api/admin';
import type { SiteSettings } from '../../api/admin';
import { errorMessage } from '../../api/http';
import { queryKeys } from '../../api/queries';
import { ui } from '../../components/ui';
import { esManager } from '../../i18n/es.manager';
import { useCan } from './ManagerLayout';
import { SettingsGateways } from './SettingsGateways';
import { SettingsConcurrentUse } from './SettingsConcurrentUse';
import { SettingsLinks } from './SettingsLinks';
import { ManagerPageHeader, QueryView, Switch } from './shared';
import { SettingsTelegram } from './TelegramPanels';

const t = esManager.settings;
/** Public switches (`settings.public`); the gateways have their own panel (SettingsGateways). */
const KEYS = (Object.keys(t.labels) as (keyof typeof t.labels)[]).filter(
  (key) => key !== 'allow_payments_qvapay' && key !== 'allow_payments_remesita',
);

/** `/manager/dashboard/settings`: one switch per site setting, each saved as it is toggled. */
export function ManagerSettings() {
  const queryClient = useQueryClient();
  const canGateways = useCan('settings.gateways');
  const canPublic = useCan('settings.public');
  const settings = useQuery(settingsQuery());
  // What recovery can use (issue 32): the switch is flagged while nothing could carry a link.
  const recovery = useQuery(linksQuery()).data?.recovery;
  const save = useMutation({
    mutationFn: (change: Partial<SiteSettings>) => patchSettings(change),
    onSuccess: (answer) => {
      queryClient.setQueryData(adminKeys.settings, answer);
      void queryClient.invalidateQueries({ queryKey: queryKeys.publicSettings });
      void queryClient.invalidateQueries({ queryKey: adminKeys.links }); // what recovery can use
      toast.success(t.saved);
    },
    onError: (error) => toast.error(errorMessage(error, esManager.requestError)),
  });

  return (
    <section>
      <ManagerPageHeader title={t.title} subtitle={t.subtitle} />
      <QueryView query={settings}>
        {(data) => (
          <div className="space-y-4">
            {data.maintenance && (
              <p
                role="status"
                className="flex items-center gap-2 rounded-xl border border-amber-500/40 bg-amber-500/10 px-4 py-3 text-amber-200"
              >
                <TriangleAlert className="size-5 shrink-0" aria-hidden="true" />
                {t.maintenanceOn}
              </p>
            )}
            <ul className={`${ui.card} divide-y divide-slate-800`}>
              {KEYS.map((key) => (
                <li
                  key={key}
                  className={`flex items-center justify-between gap-4 px-5 py-4 ${
                    key === 'maintenance' ? 'rounded-t-2xl border-l-4 border-amber-500 bg-amber-500/5' : ''
                  }`}
                >
                  <div>
                    <p className="font-medium text-white">{t.labels[key]}</p>
                    <p className="text-sm text-slate-400">{t.hints[key]}</p>
                    {key === 'allow_password_recovery' && data[key] && recovery && (
                      <RecoveryNote email={recovery.email} telegram={recovery.telegram} />
                    )}
                  </div>
                  <Switch
                    label={t.labels[key]}
                    checked={data[key]}
                    disabled={save.isPending || !canPublic}
                    onChange={(next) => save.mutate({ [key]: next })}
                  />
                </li>
              ))}
            </ul>
            <SettingsLinks disabled={!canPublic} />
            <RoomLimit
              value={data.room_member_limit}
              disabled={save.isPending || !canPublic}
              onSave={(n) => save.mutate({ room_member_limit: n })}
            />
          </div>
        )}
      </QueryView>
      <SettingsConcurrentUse />
      {canGateways && <SettingsGateways />}
      {canGateways && <SettingsTelegram />}
    </section>
  );
}

/** Under "Permitir recuperar la contraseña": how the link goes, or, flagged, that nothing can carry it. */
function RecoveryNote({ email, telegram }: { email: boolean; telegram: boolean }) {
  if (email || telegram) return <p className="text-sm text-emerald-300">{t.recoveryBy(email, telegram)}</p>;
  return (
    <p role="status" className="mt-1 flex items-start gap-2 text-sm text-amber-200">
      <TriangleAlert className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
      {t.recoveryOff}
    </p>
  );
}

/** Peers one room admits (issue 31): a number saved with its button, checked here and by the server. */
function RoomLimit(props: { value: number; disabled: boolean; onSave: (n: number) => void }) {
  const r = t.roomLimit;
  const id = useId();
  const [text, setText] = useState(String(props.value));
  const [error, setError] = useState<string | null>(null);
  useEffect(() => setText(String(props.value)), [props.value]);
  return (
    <form
      className={`${ui.card} px-5 py-4`}
      aria-labelledby={`${id}-title`}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const n = Number(text);
        if (!Number.isInteger(n) || n < ROOM_MEMBER_LIMIT.min || n > ROOM_MEMBER_LIMIT.max) {
          setError(r.invalid(ROOM_MEMBER_LIMIT.min, ROOM_MEMBER_LIMIT.max));
          return;
        }
        setError(null);
        props.onSave(n);
      }}
    >
      <h2 id={`${id}-title`} className="font-medium text-white">
        {r.title}
      </h2>
      <p className="mt-1 text-sm text-slate-400">{r.hint}</p>
      <div className="mt-3 flex flex-wrap items-end gap-3">
        <div>
          <label htmlFor={id} className="block text-sm font-medium text-slate-200">
            {r.label}
          </label>
          <input
            id={id}
            type="number"
            inputMode="numeric"
            min={ROOM_MEMBER_LIMIT.min}
            max={ROOM_MEMBER_LIMIT.max}
            className={`${ui.input} mt-1 w-28`}
            value={text}
            disabled={props.disabled}
            aria-invalid={error !== null}
            aria-describedby={error ? `${id}-error` : undefined}
            onChange={(e) => setText(e.target.value)}
          />
        </div>
        {!props.disabled && (
          <button type="submit" className={ui.buttonPrimary}>
            {r.save}
          </button>
        )}
      </div>
      {error && (
        <p id={`${id}-error`} role="alert" className="mt-2 text-sm text-red-300">
          {error}
        </p>
      )}
    </form>
  );
}
