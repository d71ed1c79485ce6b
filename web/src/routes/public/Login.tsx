import { useQuery } from '@tanstack/react-query';
import { ArrowLeft } from 'lucide-react';
import { Link, Navigate, useNavigate } from 'react-router';
import { ApiError } from '../../api/http';
import { serviceStatusQuery } from '../../api/queries';
import { hasSession } from '../../api/session';
import { AuthCard } from '../../components/AuthCard';
import { LoginForm } from '../../components/LoginForm';
import { ui } from '../../components/ui';
import { es } from '../../i18n/es';
import { useDocumentTitle } from '../../lib/title';
import { usePublicSettings } from './PublicLayout';

/**
 * `/login`. On load it checks the service status (maintenance or a 503 → /maintenance). A visitor who
 * still holds an access token goes straight to the dashboard, whose gate verifies the token (and
 * clears it and comes back here if it is no longer valid).
 */
export function Login() {
  useDocumentTitle(es.titles.login);
  const settings = usePublicSettings();
  const navigate = useNavigate();
  const status = useQuery(serviceStatusQuery());

  const inMaintenance =
    status.data?.maintenance === true || (status.error instanceof ApiError && status.error.isMaintenance);
  if (inMaintenance) return <Navigate to="/maintenance" replace />;
  if (hasSession('client')) return <Navigate to="/dashboard/home" replace />;

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
      <LoginForm realm="client" onSuccess={() => navigate('/dashboard/home', { replace: true })} />
      {/* Spec: shown only when the settings allow email. Also hidden when recovery is off, where the
          link would only bounce back (the gate redirects /password-recovery). */}
      {settings.allow_email && settings.allow_password_recovery && (
        <p className="mt-4 text-center text-sm">
          <Link to="/password-recovery" className={ui.link}>
            {es.login.forgot}
          </Link>
        </p>
      )}
    </AuthCard>
  );
}
