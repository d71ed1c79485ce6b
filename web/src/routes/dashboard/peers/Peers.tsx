import { MonitorSmartphone } from 'lucide-react';
import { Link } from 'react-router';
import { EmptyState } from '../../components/EmptyState';
import { ui } from '../../components/ui';
import { es } from '../../i18n/es';
import { PageHeader } from './PageHeader';

/** `/dashboard/peers` (the peers API arrives with a later issue; until then, the empty state). */
export function Peers() {
  const t = es.dashboard.peers;
  return (
    <>
      <PageHeader title={t.title} subtitle={t.subtitle} />
      <EmptyState icon={MonitorSmartphone} title={t.emptyTitle} text={t.emptyText}>
        <Link to="/dashboard/plans" className={ui.buttonPrimary}>
          {t.emptyCta}
        </Link>
      </EmptyState>
    </>
  );
}
