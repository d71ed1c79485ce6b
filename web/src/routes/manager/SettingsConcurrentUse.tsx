import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import toast from 'react-hot-toast';
import {
  concurrentUseKey,
  concurrentUsePolicyQuery,
  patchConcurrentUsePolicy,
  type ConcurrentUsePolicy,
} from '../../api/adminConcurrentUse';
import { errorMessage } from '../../api/http';
import { ui } from '../../components/ui';
import { esManager } from '../../i18n/es.manager';
import { esConcurrent } from '../../i18n/es.manager.concurrent';
import { useCan } from './ManagerLayout';
import { QueryView } from './shared';

const t = esConcurrent.settings;

/**
 * Ajustes → Uso simultáneo: notify only (default), or notify and regenerate the keys after N
 * detections within 24 h. Anyone who reads Ajustes sees it; `settings.public` changes it.
 */
export function SettingsConcurrentUse() {
  const policy = useQuery(concurrentUsePolicyQuery());
  return (
    <section className={`${ui.card} mt-6 p-5`} aria-labelledby="concurrent-use-title">
      <h2 id="concurrent-use-title" className="text-lg font-semibold text-white">
        {t.title}
      </h2>
      <p className="mt-1 text-sm text-slate-400">{t.hint}</p>
      <QueryView query={policy}>{(data) => <PolicyForm policy={data} />}</QueryView>
    </section>
  );
}

function PolicyForm({ policy }: { policy: ConcurrentUsePolicy }) {
  const canWrite = useCan('settings.public');
  const queryClient = useQueryClient();
  const [action, setAction] = useState(policy.action);
  const [after, setAfter] = useState(String(policy.regenerate_after));
  const actionId = useId();
  const afterId = useId();
  useEffect(() => {
    setAction(policy.action);
    setAfter(String(policy.regenerate_after));
  }, [policy]);
  const save = useMutation({
    mutationFn: () => patchConcurrentUsePolicy({ action, regenerate_after: Number(after) }),
    onSuccess: (answer) => {
      queryClient.setQueryData(concurrentUseKey, answer);
      toast.success(t.saved);
    },
    onError: (error) => toast.error(errorMessage(error, esManager.requestError)),
  });
  return (
    <form
      className="mt-4 grid gap-4 sm:grid-cols-2"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <div>
        <label htmlFor={actionId} className="block text-sm font-medium text-slate-200">
          {t.action}
        </label>
        <select
          id={actionId}
          className={`${ui.input} mt-1`}
          value={action}
          disabled={!canWrite}
          onChange={(e) => setAction(e.target.value as ConcurrentUsePolicy['action'])}
        >
          <option value="notify">{t.actions.notify}</option>
          <option value="regenerate">{t.actions.regenerate}</option>
        </select>
      </div>
      <div>
        <label htmlFor={afterId} className="block text-sm font-medium text-slate-200">
          {t.after}
        </label>
        <input
          id={afterId}
          type="number"
          min={1}
          max={100}
          className={`${ui.input} mt-1`}
          value={after}
          disabled={!canWrite || action !== 'regenerate'}
          onChange={(e) => setAfter(e.target.value)}
        />
        <p className="mt-1 text-xs text-slate-400">{t.afterHint}</p>
      </div>
      {canWrite && (
        <div className="sm:col-span-2">
          <button type="submit" className={ui.buttonPrimary} disabled={save.isPending}>
            {t.save}
          </button>
        </div>
      )}
    </form>
  );
}
