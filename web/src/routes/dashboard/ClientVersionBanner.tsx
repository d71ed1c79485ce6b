import { Download, Sparkles, X } from 'lucide-react';
import { useState } from 'react';
import type { ClientVersion } from '@vpn/contracts';
import { ui } from '../../components/ui';
import { es } from '../../i18n/es';
import { dismissVersion, isVersionDismissed } from '../../lib/dismissedVersions';

const t = es.dashboard.home.version;

/**
 * The home banner announcing the client app's newest release (`GET /api/client/agent`): its version
 * and a 'Descargar' button that opens the download in a new tab. Shown until the customer dismisses
 * that version (remembered in this browser); nothing when no release was published.
 */
export function ClientVersionBanner({ info }: { info: ClientVersion }) {
  const { version, url } = info;
  const [dismissed, setDismissed] = useState(() => (version ? isVersionDismissed(version) : true));
  if (!version || !url || dismissed) return null;

  return (
    <section
      aria-labelledby="client-version-title"
      className="flex flex-col gap-4 rounded-2xl border border-blue-500/30 bg-blue-500/10 p-5 sm:flex-row sm:items-center"
    >
      <span className="grid size-11 shrink-0 place-items-center rounded-xl bg-blue-500/20 text-blue-200">
        <Sparkles className="size-5" aria-hidden="true" />
      </span>
      <div className="flex-1">
        <h2 id="client-version-title" className="font-semibold text-white">
          {t.title(version)}
        </h2>
        <p className="text-sm text-slate-300">{t.text}</p>
      </div>
      <div className="flex items-center gap-2">
        <a href={url} target="_blank" rel="noopener noreferrer" className={ui.buttonPrimary}>
          <Download className="size-4" aria-hidden="true" />
          {t.download}
          <span className="sr-only"> {es.common.openInNewTab}</span>
        </a>
        <button
          type="button"
          className={ui.buttonGhost}
          aria-label={t.dismissLabel(version)}
          onClick={() => {
            dismissVersion(version);
            setDismissed(true);
          }}
        >
          <X className="size-4" aria-hidden="true" />
          <span aria-hidden="true">{t.dismiss}</span>
        </button>
      </div>
    </section>
  );
}
