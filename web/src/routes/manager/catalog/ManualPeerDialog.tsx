import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import toast from 'react-hot-toast';
import { allServersQuery } from '../../../api/adminFleet';
import { adminPlansQuery, catalogKeys, createManualPeer } from '../../../api/adminCatalog';
import { errorMessage } from '../../../api/http';
import { TextField } from '../../../components/Field';
import { FormDialog } from '../../../components/FormDialog';
import { ui } from '../../../components/ui';
import { esManager } from '../../../i18n/es.manager';
import { esCatalog } from '../../../i18n/es.manager.catalog';

const t = esCatalog.manual;

/** 'Peer manual' (from the Peers page): a peer for a customer who paid another way. */
export function ManualPeerDialog({ onClose }: { onClose: () => void }) {
  const queryClient = useQueryClient();
  const planId = useId();
  const serverId = useId();
  // Every plan, hidden ones too (marked): a manager may sell a plan no longer offered publicly.
  const plans = useQuery(adminPlansQuery({ page_size: 100 }));
  const servers = useQuery(allServersQuery());
  const [username, setUsername] = useState('');
  const [plan, setPlan] = useState('');
  const [name, setName] = useState('');
  const [server, setServer] = useState('');
  const [error, setError] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: createManualPeer,
    onSuccess: (peer, body) => {
      toast.success(t.created(peer.name, body.username));
      void queryClient.invalidateQueries({ queryKey: catalogKeys.peers });
      onClose();
    },
    onError: (err) => setError(errorMessage(err, esManager.requestError)),
  });

  function submit() {
    const planNumber = Number(plan);
    if (!username.trim() || !name.trim() || !Number.isInteger(planNumber) || planNumber <= 0)
      return setError(t.required);
    setError(null);
    create.mutate({
      username: username.trim(),
      plan: planNumber,
      name: name.trim(),
      ...(server ? { server: Number(server) } : {}),
    });
  }

  const busy = create.isPending;
  return (
    <FormDialog
      onClose={onClose}
      title={t.title}
      description={t.description}
      submitLabel={t.submit}
      onSubmit={submit}
      busy={busy}
      error={error}
    >
      <TextField
        label={t.username}
        autoComplete="off"
        value={username}
        onChange={(e) => setUsername(e.target.value)}
        disabled={busy}
      />
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
          {(plans.data?.results ?? []).map((p) => (
            <option key={p.id} value={p.id}>
              {p.hidden ? esCatalog.peers.hiddenPlan(p.name) : p.name}
            </option>
          ))}
        </select>
      </div>
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
    </FormDialog>
  );
}
