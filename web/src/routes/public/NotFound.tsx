import { Compass } from 'lucide-react';
import { Link } from 'react-router';
import { AuthCard } from '../../components/AuthCard';
import { ui } from '../../components/ui';
import { es } from '../../i18n/es';
import { useDocumentTitle } from '../../lib/title';

/** The catch-all: 'Página no encontrada' and a way back to the login. */
export function NotFound() {
  useDocumentTitle(es.titles.notFound);
  return (
    <AuthCard title={es.notFound.title}>
      <div className="flex flex-col items-center gap-4 text-center">
        <Compass className="size-14 text-emerald-400" aria-hidden="true" />
        <p className="text-slate-200">{es.notFound.text}</p>
        <Link to="/login" className={`${ui.buttonPrimary} w-full`}>
          {es.notFound.back}
        </Link>
      </div>
    </AuthCard>
  );
}
