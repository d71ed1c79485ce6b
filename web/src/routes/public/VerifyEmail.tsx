import { useQuery, useQueryClient } from '@tanstack/react-query';
import { CircleCheck, CircleX } from 'lucide-react';
import { useEffect } from 'react';
import { Link } from 'react-router';
import { verifyEmail } from '../../api/account';
import { errorMessage } from '../../api/http';
import { queryKeys } from '../../api/queries';
import { hasSession } from '../../api/session';
import { AuthCard } from '../../components/AuthCard';
import { LoadingBlock } from '../../components/LoadingScreen';
import { ui } from '../../components/ui';
import { es } from '../../i18n/es';
import { useDocumentTitle } from '../../lib/title';
import { usePublicSettings } from './PublicLayout';
import { useFragmentToken } from './useFragmentToken';

const t = es.verifyEmail;

/**
 * `/verify-email#token=…`, reached from the verification mail: posts the link's one-time token to
 * `POST /api/client/verify-email` as soon as the page opens and says how it went ('Email
 * verificado correctamente' or the server's error). The call is a query keyed by the token, so it
 * runs once even when React mounts the page twice (StrictMode) — a second post would find the token
 * spent. A signed-in customer's cached account is refreshed so Settings shows the new state.
 */
export function VerifyEmail() {
  useDocumentTitle(es.titles.verifyEmail);
  const settings = usePublicSettings();
  const token = useFragmentToken();
  const queryClient = useQueryClient();
  const verification = useQuery({
    queryKey: ['public', 'verify-email', token],
    queryFn: () => verifyEmail(token ?? ''),
    enabled: token !== null,
    retry: false,
    staleTime: Infinity,
    gcTime: Infinity,
    refetchOnMount: false,
    refetchOnReconnect: false,
    refetchOnWindowFocus: false,
  });
  const signedIn = hasSession('client');

  useEffect(() => {
    if (verification.isSuccess && signedIn) {
      void queryClient.invalidateQueries({ queryKey: queryKeys.currentUser });
    }
  }, [verification.isSuccess, signedIn, queryClient]);

  const brandTo = settings.show_landing ? '/' : undefined;
  const next = signedIn ? (
    <Link to="/dashboard/settings" className={ui.buttonPrimary}>
      {t.goToSettings}
    </Link>
  ) : (
    <Link to="/login" className={ui.buttonPrimary}>
      {t.goToLogin}
    </Link>
  );

  if (token && verification.isPending) {
    return (
      <AuthCard title={t.title} brandTo={brandTo}>
        <LoadingBlock label={t.verifying} />
      </AuthCard>
    );
  }

  if (verification.isSuccess) {
    return (
      <AuthCard title={t.doneTitle} brandTo={brandTo}>
        <div className="flex flex-col items-center gap-4 text-center">
          <CircleCheck className="size-14 text-emerald-400" aria-hidden="true" />
          <p className="text-slate-200" role="status">
            {verification.data || es.msg.emailVerified}
          </p>
          {next}
        </div>
      </AuthCard>
    );
  }

  const failure = token ? errorMessage(verification.error, es.common.requestError) : es.msg.resetInvalid;
  return (
    <AuthCard title={t.failedTitle} brandTo={brandTo}>
      <div className="flex flex-col items-center gap-4 text-center">
        <CircleX className="size-14 text-red-400" aria-hidden="true" />
        <p className="text-slate-200" role="alert">
          {failure}
        </p>
        {next}
      </div>
    </AuthCard>
  );
}
