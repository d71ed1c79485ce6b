import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ArrowLeft } from 'lucide-react';
import { useEffect, useSyncExternalStore } from 'react';
import { Link, Navigate, useNavigate } from 'react-router';
import { ApiError } from '../../api/http';
import {
  advertisementsQuery,
  clientVersionQuery,
  currentUserQuery,
  peersQuery,
  queryKeys,
  serviceStatusQuery,
} from '../../api/queries';
import { hasSession } from '../../api/session';
import { AuthCard } from '../../components/AuthCard';
import { LoginForm } from '../../components/LoginForm';
import { ui } from '../../components/ui';
import { es } from '../../i18n/es';
import { useDocumentTitle } from '../../lib/title';
import { usePublicSettings } from './PublicLayout';

/** How long a status read counts as this page load's check. */
const STATUS_FRESH_MS = 5_000;

const noSubscription = () => () => {};

/**
 * Whether a customer token is stored. Read after hydration (the server snapshot is "no"): the
 * pre-rendered login form must hydrate as it is, and only then give way to the dashboard.
 */
function useHasClientSession(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => hasSession('client'),
    () => false,
  );
}

/**
 * `/login`. On load it checks the service status (maintenance or a 503 → /maintenance). A visitor who
 * still holds an access token goes straight to the dashboard, whose gate verifies the token (and
 * clears it and comes back here if it is no longer valid).
 */
export function Login() {
  useDocumentTitle(es.titles.login);
  const settings = usePublicSettings();
  const navigate = useNavigate();
  // A status read in the last few seconds (the one inline in the page just served) is this load's
  // check; otherwise (a later visit within the app) it is asked now.
  const status = useQuery({ ...serviceStatusQuery(), staleTime: STATUS_FRESH_MS });
  const signedIn = useHasClientSession();

  const inMaintenance =
    status.data?.maintenance === true || (status.error instanceof ApiError && status.error.isMaintenance);
  const queryClient = useQueryClient();
  useEffect(() => {
    // The settings the gate holds predate this check: re-read them, or the gate (which sends a
    // visitor of /maintenance home while maintenance is off) would bounce the visitor back.
    if (inMaintenance) void queryClient.resetQueries({ queryKey: queryKeys.publicSettings });
  }, [inMaintenance, queryClient]);
  if (inMaintenance) return <Navigate to="/maintenance" replace />;
  if (signedIn) return <Navigate to="/dashboard/home" replace />;

  return (
    <AuthCard
      title={es.login.title}
      subtitle={es.login.subtitle}
      brandTo={settings.show_landing ? '/' : undefined}
      footer={
        <>
          {settings.allow_registration && (
            <p>
              {es.login.noAccount}{' '}
              <Link to="/register" className={ui.link}>
                {es.login.registerLink}
              </Link>
            </p>
          )}
          {settings.show_landing && (
            <p>
              <Link to="/" className="inline-flex items-center gap-1 hover:text-white">
                <ArrowLeft className="size-4" aria-hidden="true" />
                {es.login.backToLanding}
              </Link>
            </p>
          )}
        </>
      }
    >
      <LoginForm
        realm="client"
        onSuccess={() => {
          // The home's data is asked for now, all at once and while its code loads (issue 28),
          // rather than by each component as it mounts, one round trip after another. A form sent
          // before the app arrived had these asked for by the boot script (src/boot.ts, HOME_DATA:
          // keep the two lists alike); the calls below then take those answers.
          void queryClient.prefetchQuery(currentUserQuery());
          void queryClient.prefetchQuery(advertisementsQuery());
          void queryClient.prefetchQuery(clientVersionQuery());
          void queryClient.prefetchQuery(peersQuery());
          void navigate('/dashboard/home', { replace: true });
        }}
      />
      {/* Spec: shown only when the settings allow e-mail; a recovery also goes through the customer's
          linked Telegram chat (issue 32), so it shows whenever recovery is on, which the server
          reports only while e-mail or Telegram can carry the link (services/telegram/recovery.ts).
          Hidden when recovery is off, where the link would only bounce back. */}
      {settings.allow_password_recovery && (
        <p className="mt-4 text-center text-sm">
          <Link to="/password-recovery" className={ui.link}>
            {es.login.forgot}
          </Link>
        </p>
      )}
    </AuthCard>
  );
}
