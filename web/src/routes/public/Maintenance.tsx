import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ArrowLeft, Wrench } from 'lucide-react';
import { useEffect, useRef } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiError } from '../../api/http';
import { queryKeys, serviceStatusQuery } from '../../api/queries';
import { AuthCard } from '../../components/AuthCard';
import { ui } from '../../components/ui';
import { es } from '../../i18n/es';
import { useDocumentTitle } from '../../lib/title';
import { homePath } from './gate';
import { useOptionalPublicSettings } from './PublicLayout';

/** How often the page asks whether the service is back. */
export const MAINTENANCE_POLL_MS = 30_000;

/**
 * `/maintenance`. Polls the service status every 30 s; when it sees maintenance end it leaves by
 * itself for / (landing on) or /login. The back link leads to the same place.
 */
export function Maintenance() {
  useDocumentTitle(es.titles.maintenance);
  const settings = useOptionalPublicSettings();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const status = useQuery({ ...serviceStatusQuery(), refetchInterval: MAINTENANCE_POLL_MS });
  const home = homePath(settings);

  const down =
    status.data?.maintenance === true || (status.error instanceof ApiError && status.error.isMaintenance);
  const up = status.isSuccess && !status.data.maintenance;

  /** The gate must re-read the settings, or a cached "maintenance" would bring the visitor back. */
  function forgetSettings() {
    void queryClient.resetQueries({ queryKey: queryKeys.publicSettings });
  }

  // Leave automatically only after having *seen* maintenance end; a visitor who opens this page while
  // the service is up just gets the back link (no bounce loop with a stale settings answer).
  const sawDown = useRef(false);
  useEffect(() => {
    if (down) sawDown.current = true;
    if (up && sawDown.current) {
      sawDown.current = false;
      void queryClient.resetQueries({ queryKey: queryKeys.publicSettings });
      navigate(home, { replace: true });
    }
  }, [down, up, home, navigate, queryClient]);

  return (
    <AuthCard title={es.maintenance.title}>
      <div className="flex flex-col items-center gap-4 text-center">
        <span className="grid size-16 place-items-center rounded-2xl bg-amber-400/15 text-amber-300">
          <Wrench className="size-8" aria-hidden="true" />
        </span>
        <p className="text-slate-200">{es.maintenance.text}</p>
        <p className="text-sm text-slate-400">{es.maintenance.polling}</p>
        <Link to={home} onClick={forgetSettings} className={`${ui.buttonSecondary} mt-2`}>
          <ArrowLeft className="size-4" aria-hidden="true" />
          {es.maintenance.back}
        </Link>
      </div>
    </AuthCard>
  );
}
