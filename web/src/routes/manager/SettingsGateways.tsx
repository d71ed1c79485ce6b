/**
 * Ajustes → Pasarelas de pago (owner only, `settings.gateways`): each gateway's switch, whether
 * credentials are set and where from, and a form to replace or forget them. Credentials are only
 * ever sent, never received: the fields start empty every time.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import toast from 'react-hot-toast';
import type { GatewayPatch } from '@vpn/contracts';
import { adminKeys } from '../../api/admin';
import { fleetKeys, gatewaysQuery, patchGateways } from '../../api/adminFleet';
import type { GatewaySettings } from '../../api/adminFleet';
import { errorMessage } from '../../api/http';
import { queryKeys } from '../../api/queries';
import { TextField } from '../../components/Field';
import { ui } from '../../components/ui';
import { esManager } from '../../i18n/es.manager';
import { esFleet } from '../../i18n/es.manager.fleet';
import { QueryView, StateBadge, Switch } from './shared';

const t = esFleet.gateways;

const GATEWAYS = {
  qvapay: { switchKey: 'allow_payments_qvapay', fields: ['app_id', 'app_secret'] },
  remesita: {
    switchKey: 'allow_payments_remesita',
    fields: ['api_key', 'api_secret', 'business_id', 'base_url'],
  },
} as const;
/** Left empty, these are not sent (Remesita's API base then comes from REMESITA_BASE_URL). */
const OPTIONAL: readonly string[] = ['base_url'];
type Gateway = keyof typeof GATEWAYS;

export function SettingsGateways() {
  const queryClient = useQueryClient();
  const gateways = useQuery(gatewaysQuery());
  const save = useMutation({
    mutationFn: (body: GatewayPatch) => patchGateways(body),
    onSuccess: (answer, body) => {
      queryClient.setQueryData(fleetKeys.gateways, answer);
      void queryClient.invalidateQueries({ queryKey: adminKeys.settings });
      void queryClient.invalidateQueries({ queryKey: queryKeys.publicSettings });
      const credentials = body.qvapay !== undefined ? body.qvapay : body.remesita;
      toast.success(credentials === undefined ? t.switched : credentials === null ? t.forgotten : t.saved);
    },
    onError: (error) => toast.error(errorMessage(error, esManager.requestError)),
  });

  return (
    <section className="mt-8" aria-labelledby="gateways-title">
      <h2 id="gateways-title" className="text-lg font-semibold text-white">
        {t.title}
      </h2>
      <p className="mb-4 text-sm text-slate-400">{t.subtitle}</p>
      <QueryView query={gateways}>
        {(data) => (
          <div className="grid gap-4 lg:grid-cols-2">
            {(Object.keys(GATEWAYS) as Gateway[]).map((g) => (
              <GatewayCard key={g} gateway={g} data={data} busy={save.isPending} onSave={save.mutate} />
            ))}
          </div>
        )}
      </QueryView>
    </section>
  );
}

function GatewayCard({
  gateway,
  data,
  busy,
  onSave,
}: {
  gateway: Gateway;
  data: GatewaySettings;
  busy: boolean;
  onSave: (body: GatewayPatch) => void;
}) {
  const { switchKey, fields } = GATEWAYS[gateway];
  const status = data[gateway];
  const [values, setValues] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const label = gateway === 'qvapay' ? t.switchQvapay : t.switchRemesita;

  function submit(event: React.FormEvent) {
    event.preventDefault();
    const filled = Object.fromEntries(
      fields.map((f) => [f, (values[f] ?? '').trim()] as const).filter(([, v]) => v),
    );
    if (fields.some((f) => !filled[f] && !OPTIONAL.includes(f))) return setError(t.required);
    setError(null);
    onSave({ [gateway]: filled } as GatewayPatch);
    setValues({});
  }

  return (
    <div className={`${ui.card} p-5`}>
      <div className="flex items-center justify-between gap-4">
        <div>
          <h3 className="font-semibold text-white">{gateway === 'qvapay' ? t.qvapay : t.remesita}</h3>
          <StateBadge ok={status.configured}>{t.source[status.source]}</StateBadge>
        </div>
        <Switch
          label={label}
          checked={data[switchKey]}
          disabled={busy}
          onChange={(next) => onSave({ [switchKey]: next })}
        />
      </div>
      <form className="mt-4 space-y-3" onSubmit={submit} aria-label={`${t.save}: ${label}`}>
        {fields.map((f) => (
          <TextField
            key={f}
            label={t.fields[f]}
            type={f.includes('secret') ? 'password' : 'text'}
            autoComplete="off"
            value={values[f] ?? ''}
            disabled={busy}
            hint={f.includes('secret') ? t.secretHint : f === 'base_url' ? t.baseUrlHint : undefined}
            onChange={(e) => setValues((prev) => ({ ...prev, [f]: e.target.value }))}
          />
        ))}
        {error && (
          <p role="alert" className="text-sm text-rose-300">
            {error}
          </p>
        )}
        <div className="flex flex-wrap gap-2">
          <button type="submit" className={ui.buttonPrimary} disabled={busy}>
            {t.save}
          </button>
          {status.source === 'console' && (
            <button
              type="button"
              className={ui.buttonSecondary}
              disabled={busy}
              onClick={() => onSave({ [gateway]: null } as GatewayPatch)}
            >
              {t.forget}
            </button>
          )}
        </div>
      </form>
    </div>
  );
}
