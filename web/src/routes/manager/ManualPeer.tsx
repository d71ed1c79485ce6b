import { useMutation, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import toast from 'react-hot-toast';
import { grantPeer, serversQuery } from '../../api/admin';
import { errorMessage } from '../../api/http';
import { plansQuery } from '../../api/queries';
import { TextField } from '../../components/Field';
import { FormError } from '../../components/FormError';
import { Spinner } from '../../components/Spinner';
import { ui } from '../../components/ui';
import { esManager } from '../../i18n/es.manager';
import { ManagerPageHeader } from './shared';

const t = esManager.peer;

/** `/manager/dashboard/peer`: a peer for a customer who paid another way. */
export function ManagerManualPeer() {
  const planId = useId();
  const serverId = useId();
  const plans = useQuery(plansQuery());
  const servers = useQuery(serversQuery());
  const [username, setUsername] = useState('');
  const [plan, setPlan] = useState('');
  const [name, setName] = useState('');
  const [server, setServer] = useState('');
  const [error, setError] = useState<string | null>(null);
  const grant = useMutation({
    mutationFn: grantPeer,
    onSuccess: (peer, body) => {
      toast.success(t.created(peer.name, body.username));
      setName('');
    },
    onError: (err) => setError(errorMessage(err, esManager.requestError)),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    const planNumber = Number(plan);
    if (!username.trim() || !name.trim() || !Number.isInteger(planNumber) || planNumber <= 0) {
      return setError(t.required);
    }
    setError(null);
    grant.mutate({
      username: username.trim(),
      plan: planNumber,
      name: name.trim(),
      ...(server ? { server: Number(server) } : {}),
    });
  }

  const busy = grant.isPending;
  return (
    <section>
      <ManagerPageHeader title={t.title} subtitle={t.subtitle} />
      <form noValidate onSubmit={submit} className={`${ui.card} max-w-xl space-y-4 p-6`}>
        <FormError message={error} />
        <TextField
          label={t.username}
          autoComplete="off"
          value={username}
          onChange={(e) => setUsername(e.target.value)}
          disabled={busy}
        />
        {plans.data ? (
          <div>
            <label htmlFor={planId} className={ui.label}>
              {t.plan}
            </label>
            <select
              id={planId}
              className={ui.input}
              value={plan}
              onChange={(e) => setPlan(e.target.value)}
              disabled={busy}
            >
              <option value="">{t.planPlaceholder}</option>
              {plans.data.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          </div>
        ) : (
          // Without the public plan list the id can still be typed.
          <TextField
            label={t.planId}
            inputMode="numeric"
            value={plan}
            onChange={(e) => setPlan(e.target.value)}
            disabled={busy}
          />
        )}
        <TextField label={t.name} value={name} onChange={(e) => setName(e.target.value)} disabled={busy} />
        <div>
          <label htmlFor={serverId} className={ui.label}>
            {t.server}
          </label>
          <select
            id={serverId}
            className={ui.input}
            value={server}
            onChange={(e) => setServer(e.target.value)}
            disabled={busy}
          >
            <option value="">{t.serverAuto}</option>
            {(servers.data ?? []).map((s) => (
              <option key={s.id} value={s.id}>
                {s.name} — {s.ubication}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className={ui.buttonPrimary} disabled={busy}>
          {busy && <Spinner className="size-4" />}
          {t.submit}
        </button>
      </form>
    </section>
  );
}
