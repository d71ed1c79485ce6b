import { LifeBuoy } from 'lucide-react';
import { es } from '../i18n/es';
import { ui } from './ui';

interface SupportLinkProps {
  /** The runtime config's support link (Ajustes → Enlaces para clientes, else SUPPORT_URL). */
  url: string | null;
  label?: string;
  className?: string;
}

/**
 * 'Contactar con Soporte': opens the support link in a new tab. Without one it is not there at all
 * (issue 32: a green button that does nothing only frustrates; spec: "support is enabled only if
 * configured"), and the blocks around it are hidden too.
 */
export function SupportLink({
  url,
  label = es.dashboard.home.support,
  className = ui.buttonPrimary,
}: SupportLinkProps) {
  const icon = <LifeBuoy className="size-4" aria-hidden="true" />;
  if (!url) return null;
  return (
    <a href={url} target="_blank" rel="noopener noreferrer" className={className}>
      {icon}
      {label}
      <span className="sr-only"> {es.common.openInNewTab}</span>
    </a>
  );
}
