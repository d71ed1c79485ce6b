import { LifeBuoy } from 'lucide-react';
import { es } from '../i18n/es';
import { ui } from './ui';

interface SupportLinkProps {
  /** The runtime config's support URL; null when SUPPORT_URL is unset. */
  url: string | null;
  label?: string;
  className?: string;
}

/**
 * 'Contactar con Soporte': opens the support URL in a new tab. Without a configured URL it is a
 * disabled button (spec: "support is enabled only if configured"), so the layout does not jump.
 */
export function SupportLink({
  url,
  label = es.dashboard.home.support,
  className = ui.buttonPrimary,
}: SupportLinkProps) {
  const icon = <LifeBuoy className="size-4" aria-hidden="true" />;
  if (!url) {
    return (
      <button type="button" className={className} disabled title={es.dashboard.home.supportUnavailable}>
        {icon}
        {label}
      </button>
    );
  }
  return (
    <a href={url} target="_blank" rel="noopener noreferrer" className={className}>
      {icon}
      {label}
      <span className="sr-only"> {es.common.openInNewTab}</span>
    </a>
  );
}
