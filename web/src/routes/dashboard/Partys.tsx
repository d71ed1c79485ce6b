import { Users } from 'lucide-react';
import { Navigate } from 'react-router';
import { EmptyState } from '../../components/EmptyState';
import { es } from '../../i18n/es';
import { useCurrentUser } from './DashboardLayout';
import { PageHeader } from './PageHeader';

/** `/dashboard/partys` (Salas): only where the site allows rooms; the rooms API comes later. */
export function Partys() {
  const user = useCurrentUser();
  if (!user.web_settings.allow_partys) return <Navigate to="/dashboard/home" replace />;
  const t = es.dashboard.partys;
  return (
    <>
      <PageHeader title={t.title} subtitle={t.subtitle} />
      <EmptyState icon={Users} title={t.emptyTitle} text={t.emptyText} />
    </>
  );
}
