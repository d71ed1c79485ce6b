import { useQuery } from '@tanstack/react-query';
import {
  FileClock,
  Gauge,
  KeyRound,
  LogOut,
  Megaphone,
  Network,
  Receipt,
  Server,
  ShieldCheck,
  SlidersHorizontal,
  Tags,
  Users,
  Waypoints,
} from 'lucide-react';
import { createContext, useContext, type ReactNode } from 'react';
import { can, type Permission } from '@vpn/contracts';
import { Navigate, NavLink, Outlet } from 'react-router';
import toast from 'react-hot-toast';
import { ApiError } from '../../api/http';
import { currentManagerQuery } from '../../api/queries';
import { hasSession, logout } from '../../api/session';
import type { CurrentManager } from '../../api/types';
import { Brand } from '../../components/Brand';
import { ErrorPanel } from '../../components/ErrorPanel';
import { LoadingScreen } from '../../components/LoadingScreen';
import { RedirectToLogin } from '../../components/RedirectToLogin';
import { es } from '../../i18n/es';
import { esManager } from '../../i18n/es.manager';
import { esManagers } from '../../i18n/es.manager.managers';
import { useDocumentTitle } from '../../lib/title';
import { ReauthDialog } from '../../components/ReauthDialog';
import { ScrollRow } from '../../components/ScrollRow';
import { useMediaQuery } from '../../lib/useMediaQuery';

/** From this width the sections are a sidebar (see ManagerNav). */
const SIDEBAR_QUERY = '(min-width: 1024px)';

const CurrentManagerContext = createContext<CurrentManager | null>(null);

export function useCurrentManager(): CurrentManager {
  const manager = useContext(CurrentManagerContext);
  if (!manager) throw new Error('useCurrentManager fuera de ManagerLayout');
  return manager;
}

/**
 * The console's sections, in the order the navigation reads (issue 7), each with the permission of
 * the matrix (packages/contracts/src/admin.ts) a role needs to see it.
 */
export const NAV: { to: string; label: string; icon: typeof Gauge; permission: Permission; end?: boolean }[] =
  [
    {
      to: '/manager/dashboard',
      label: esManager.nav.overview,
      icon: Gauge,
      permission: 'overview.read',
      end: true,
    },
    {
      to: '/manager/dashboard/customers',
      label: esManager.nav.customers,
      icon: Users,
      permission: 'customers.read',
    },
    { to: '/manager/dashboard/peers', label: esManager.nav.peers, icon: Network, permission: 'peers.read' },
    {
      to: '/manager/dashboard/servers',
      label: esManager.nav.servers,
      icon: Server,
      permission: 'servers.read',
    },
    { to: '/manager/dashboard/plans', label: esManager.nav.plans, icon: Tags, permission: 'plans.read' },
    {
      to: '/manager/dashboard/invoices',
      label: esManager.nav.invoices,
      icon: Receipt,
      permission: 'invoices.read',
    },
    {
      to: '/manager/dashboard/partys',
      label: esManager.nav.rooms,
      icon: Waypoints,
      permission: 'rooms.read',
    },
    {
      to: '/manager/dashboard/content',
      label: esManager.nav.content,
      icon: Megaphone,
      permission: 'content.write',
    },
    {
      to: '/manager/dashboard/settings',
      label: esManager.nav.settings,
      icon: SlidersHorizontal,
      permission: 'settings.read',
    },
    {
      to: '/manager/dashboard/managers',
      label: esManager.nav.managers,
      icon: KeyRound,
      permission: 'managers.manage',
    },
    { to: '/manager/dashboard/audit', label: esManager.nav.audit, icon: FileClock, permission: 'audit.read' },
  ];

/** Whether the signed-in manager's role has a permission (the server enforces it again). */
export function useCan(permission: Permission): boolean {
  return can(useCurrentManager().role, permission);
}

/** A console page a role may not use: a clear panel instead of the page (and no request made). */
export function RequirePermission({ permission, children }: { permission: Permission; children: ReactNode }) {
  if (!useCan(permission))
    return (
      <p role="alert" className="rounded-2xl border border-amber-500/30 bg-amber-500/10 p-6 text-amber-100">
        {esManager.noPermission}
      </p>
    );
  return <>{children}</>;
}

const navClass = ({ isActive }: { isActive: boolean }) =>
  `inline-flex shrink-0 items-center gap-2 whitespace-nowrap rounded-lg px-3 py-2 text-sm font-medium transition ${
    isActive ? 'bg-white/10 text-white' : 'text-slate-300 hover:bg-white/5 hover:text-white'
  }`;

/** The sidebar's links: one per line, the whole width of the column. */
const sideClass = ({ isActive }: { isActive: boolean }) =>
  `flex items-center gap-3 rounded-lg px-3 py-2 text-sm font-medium transition ${
    isActive ? 'bg-white/10 text-white' : 'text-slate-300 hover:bg-white/5 hover:text-white'
  }`;

/**
 * The sections. From 1024 px on (laptops: 1280 × 800, 1366 × 768) a sidebar lists all of them at
 * once, eleven lines of 36 px in the 700 px under the header (issue 34: in a row, "Auditoría" hid
 * behind a chevron at 1280 px). Narrower, the row that scrolls sideways (issue 28) takes its place;
 * only one of the two is in the page, so it has one navigation landmark.
 */
function ManagerNav({ variant }: { variant: 'side' | 'row' }) {
  const { role } = useCurrentManager();
  const items = NAV.filter((item) => can(role, item.permission));
  if (variant === 'side')
    return (
      <nav aria-label={esManager.navLabel} className="w-52 shrink-0 border-r border-white/5 bg-navy-950/60">
        <ul className="sticky top-0 flex flex-col gap-0.5 p-3">
          {items.map(({ to, label, icon: Icon, end }) => (
            <li key={to}>
              <NavLink to={to} end={end} className={sideClass}>
                <Icon className="size-4 shrink-0" aria-hidden="true" />
                {label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
    );
  return (
    <nav aria-label={esManager.navLabel} className="border-b border-white/5 bg-navy-950/60">
      {/* On a tablet or a phone the row scrolls and says so at the edge where sections are cut
          (issue 28). */}
      <ScrollRow moreLabel={esManager.navMore} backLabel={esManager.navBack} className="px-4 py-2 sm:px-6">
        {items.map(({ to, label, icon: Icon, end }) => (
          <NavLink key={to} to={to} end={end} className={navClass}>
            <Icon className="size-4" aria-hidden="true" />
            {label}
          </NavLink>
        ))}
      </ScrollRow>
    </nav>
  );
}

async function signOut() {
  const ok = await logout('manager');
  if (!ok) toast.error(es.session.logoutError);
}

/**
 * `/manager/dashboard/*` shell, gated like the customer dashboard but in the manager realm: no
 * manager token → /manager/login; verified by /api/admin/verify-token ('Verificando acceso').
 * Maintenance does not apply to managers (they are the ones who end it).
 */
export function ManagerLayout() {
  useDocumentTitle(es.titles.manager);
  const hasToken = hasSession('manager');
  const me = useQuery({ ...currentManagerQuery(), enabled: hasToken });
  const wide = useMediaQuery(SIDEBAR_QUERY);

  if (!hasToken) return <Navigate to="/manager/login" replace />;
  if (me.isPending) return <LoadingScreen label={es.common.verifyingAccess} />;
  if (!me.data) {
    if (me.error instanceof ApiError && me.error.isAuth) return <RedirectToLogin realm="manager" />;
    return (
      <div className="grid min-h-screen place-items-center px-4">
        <ErrorPanel message={es.common.loadError} onRetry={() => void me.refetch()} />
      </div>
    );
  }

  return (
    <CurrentManagerContext.Provider value={me.data}>
      <div className="flex min-h-screen flex-col">
        <header className="border-b border-white/5 bg-navy-950/85">
          {/* One line at every width (issue 28): on a phone the company name gives way (cut with an
              ellipsis) and Seguridad and "Cerrar sesión" keep their icon, their names read aloud. */}
          <div className="flex h-16 items-center gap-2 px-4 sm:gap-4 sm:px-6">
            <Brand to="/manager/dashboard" className="min-w-0" />
            <span className="hidden shrink-0 rounded-full bg-blue-500/15 px-2.5 py-0.5 text-xs font-medium text-blue-200 sm:inline">
              {es.manager.title}
            </span>
            <div className="ml-auto flex shrink-0 items-center gap-1 sm:gap-3">
              <span className="hidden text-sm text-slate-300 sm:inline">{me.data.username}</span>
              <NavLink
                to="/manager/dashboard/security"
                className={navClass}
                aria-label={esManagers.security.link}
              >
                <ShieldCheck className="size-4" aria-hidden="true" />
                <span className="hidden sm:inline">{esManagers.security.link}</span>
              </NavLink>
              <button
                type="button"
                onClick={() => void signOut()}
                aria-label={es.manager.logout}
                className="inline-flex items-center gap-2 rounded-lg px-3 py-2 text-sm whitespace-nowrap text-slate-300 hover:bg-white/5 hover:text-white"
              >
                <LogOut className="size-4" aria-hidden="true" />
                <span className="hidden sm:inline">{es.manager.logout}</span>
              </button>
            </div>
          </div>
        </header>
        {/* The page uses the screen: the sidebar, then the page up to 1600 px (wide tables, two
            columns of charts), no empty margins at a laptop's width (issue 34). */}
        <div className="flex flex-1">
          {wide && <ManagerNav variant="side" />}
          <div className="flex min-w-0 flex-1 flex-col">
            {!wide && <ManagerNav variant="row" />}
            <main className="w-full max-w-[1600px] flex-1 px-4 py-8 sm:px-6 lg:px-8">
              <Outlet />
            </main>
          </div>
        </div>
        <ReauthDialog />
      </div>
    </CurrentManagerContext.Provider>
  );
}
