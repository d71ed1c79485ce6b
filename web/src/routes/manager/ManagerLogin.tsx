import { Navigate, useNavigate } from 'react-router';
import { hasSession } from '../../api/session';
import { AuthCard } from '../../components/AuthCard';
import { LoginForm } from '../../components/LoginForm';
import { es } from '../../i18n/es';
import { useDocumentTitle } from '../../lib/title';

/** `/manager/login`: the customer login form, posting to /api/admin/login and keeping manager tokens. */
export function ManagerLogin() {
  useDocumentTitle(es.titles.login);
  const navigate = useNavigate();
  if (hasSession('manager')) return <Navigate to="/manager/dashboard" replace />;
  return (
    <AuthCard title={es.manager.loginTitle} subtitle={es.manager.loginSubtitle}>
      <LoginForm realm="manager" onSuccess={() => navigate('/manager/dashboard', { replace: true })} />
    </AuthCard>
  );
}
