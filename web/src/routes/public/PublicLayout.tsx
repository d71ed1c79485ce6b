import { useQuery } from '@tanstack/react-query';
import { createContext, useContext } from 'react';
import { Navigate, Outlet, useMatches } from 'react-router';
import { ApiError } from '../../api/http';
import { publicSettingsQuery } from '../../api/queries';
import type { PublicSettings } from '../../api/types';
import { ErrorPanel } from '../../components/ErrorPanel';
import { LoadingScreen } from '../../components/LoadingScreen';
import { es } from '../../i18n/es';
import { publicRedirect } from './gate';
import type { PublicHandle, PublicPage } from './gate';

const PublicSettingsContext = createContext<PublicSettings | null>(null);

/** The public settings (null only on /maintenance reached through a failing settings call). */
export function useOptionalPublicSettings(): PublicSettings | null {
  return useContext(PublicSettingsContext);
}

/** The public settings; the gate renders public pages only once they are loaded. */
export function usePublicSettings(): PublicSettings {
  const settings = useContext(PublicSettingsContext);
  if (!settings) throw new Error('usePublicSettings fuera de PublicLayout');
  return settings;
}

function isPublicHandle(handle: unknown): handle is PublicHandle {
  return typeof handle === 'object' && handle !== null && 'publicPage' in handle;
}

function useCurrentPublicPage(): PublicPage {
  const matches = useMatches();
  for (let i = matches.length - 1; i >= 0; i--) {
    const handle = matches[i]?.handle;
    if (isPublicHandle(handle)) return handle.publicPage;
  }
  return 'notFound';
}

/**
 * Layout of every public page: fetches the public settings first ('Cargando información...') and
 * applies the spec's public gating (see {@link publicRedirect}). A 503 means maintenance.
 */
export function PublicLayout() {
  const page = useCurrentPublicPage();
  const settings = useQuery(publicSettingsQuery());

  if (settings.isPending) return <LoadingScreen label={es.common.loading} />;

  const maintenance = settings.error instanceof ApiError && settings.error.isMaintenance;
  if (maintenance || !settings.data) {
    // The maintenance page is shown even without settings (it is where a 503 leads).
    if (page === 'maintenance') {
      return (
        <PublicSettingsContext.Provider value={settings.data ?? null}>
          <Outlet />
        </PublicSettingsContext.Provider>
      );
    }
    if (maintenance) return <Navigate to="/maintenance" replace />;
    return (
      <div className="grid min-h-screen place-items-center px-4">
        <ErrorPanel
          title={es.common.loadErrorTitle}
          message={es.common.loadError}
          onRetry={() => void settings.refetch()}
        />
      </div>
    );
  }

  const target = publicRedirect(page, settings.data);
  if (target) return <Navigate to={target} replace />;
  return (
    <PublicSettingsContext.Provider value={settings.data}>
      <Outlet />
    </PublicSettingsContext.Provider>
  );
}
