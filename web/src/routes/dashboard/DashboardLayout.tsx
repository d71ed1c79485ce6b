import { useQuery } from '@tanstack/react-query';
import { LogOut, Menu, Settings, X } from 'lucide-react';
import { createContext, useContext, useState } from 'react';
import { Link, Navigate, NavLink, Outlet, useLocation } from 'react-router';
import toast from 'react-hot-toast';
import { ApiError } from '../../api/http';
import { currentUserQuery } from '../../api/queries';
import { hasSession, logout } from '../../api/session';
import type { CurrentUser } from '../../api/types';
import { Brand } from '../../components/Brand';
import { ErrorPanel } from '../../components/ErrorPanel';
import { LoadingScreen } from '../../components/LoadingScreen';
import { RedirectToLogin } from '../../components/RedirectToLogin';
import { es } from '../../i18n/es';
import { useDocumentTitle } from '../../lib/title';
import type { UserMenu as UserMenuType } from './UserMenu';
import { UserMenuLabel, userMenuTrigger } from './UserMenuLabel';

const CurrentUserContext = createContext<CurrentUser | null>(null);

/** The signed-in customer (verified by the dashboard's gate). */
export function useCurrentUser(): CurrentUser {
  const user = useContext(CurrentUserContext);
  if (!user) throw new Error('useCurrentUser fuera de DashboardLayout');
  return user;
}

/**
 * `/dashboard/*` layout. Owns the gating (spec "Dashboard gating"): no access token → /login; the
 * token is verified ('Verificando acceso' meanwhile); refused → /login (tokens cleared); 503 →
 * /maintenance. Then the top navigation, the greeting and the user menu.
 */
export function DashboardLayout() {
  useDocumentTitle(es.titles.dashboard);
  const hasToken = hasSession('client');
  const me = useQuery({ ...currentUserQuery(), enabled: hasToken });

  if (!hasToken) return <Navigate to="/login" replace />;
  if (me.isPending) return <LoadingScreen label={es.common.verifyingAccess} />;
  if (me.isError && !me.data) {
    if (me.error instanceof ApiError && me.error.isMaintenance) return <Navigate to="/maintenance" replace />;
    if (me.error instanceof ApiError && me.error.isAuth) return <RedirectToLogin realm="client" />;
    return (
      <div className="grid min-h-screen place-items-center px-4">
        <ErrorPanel message={es.common.loadError} onRetry={() => void me.refetch()} />
      </div>
    );
  }
  if (me.error instanceof ApiError && me.error.isMaintenance) return <Navigate to="/maintenance" replace />;

  return (
    <CurrentUserContext.Provider value={me.data}>
      <div className="flex min-h-screen flex-col">
        <DashboardHeader user={me.data} />
        <main className="mx-auto w-full max-w-6xl flex-1 px-4 py-8 sm:px-6">
          <Outlet />
        </main>
      </div>
    </CurrentUserContext.Provider>
  );
}

interface NavItem {
  to: string;
  label: string;
}

function navItems(user: CurrentUser): NavItem[] {
  const n = es.dashboard.nav;
  return [
    { to: '/dashboard/home', label: n.home },
    { to: '/dashboard/peers', label: n.peers },
    ...(user.web_settings.allow_partys ? [{ to: '/dashboard/partys', label: n.rooms }] : []),
    { to: '/dashboard/plans', label: n.plans },
    { to: '/dashboard/help', label: n.help },
  ];
}

async function signOut() {
  const ok = await logout('client');
  if (!ok) toast.error(es.session.logoutError);
}

function DashboardHeader({ user }: { user: CurrentUser }) {
  const items = navItems(user);
  const [open, setOpen] = useState(false);
  const location = useLocation();
  // Close the mobile menu whenever the page changes.
  const [lastPath, setLastPath] = useState(location.pathname);
  if (lastPath !== location.pathname) {
    setLastPath(location.pathname);
    setOpen(false);
  }

  const linkClass = ({ isActive }: { isActive: boolean }) =>
    `rounded-lg px-3 py-2 text-sm font-medium transition ${
      isActive ? 'bg-emerald-500/15 text-emerald-300' : 'text-slate-300 hover:bg-white/5 hover:text-white'
    }`;

  return (
    <header className="sticky top-0 z-30 border-b border-white/5 bg-navy-950/85 backdrop-blur">
      <div className="mx-auto flex h-16 max-w-6xl items-center gap-4 px-4 sm:px-6">
        <Brand to="/dashboard/home" />
        <nav aria-label={es.dashboard.navLabel} className="ml-4 hidden items-center gap-1 md:flex">
          {items.map((item) => (
            <NavLink key={item.to} to={item.to} className={linkClass}>
              {item.label}
            </NavLink>
          ))}
        </nav>
        <div className="ml-auto hidden md:block">
          <UserMenuButton username={user.username} />
        </div>
        <button
          type="button"
          className="ml-auto rounded-lg p-2 text-slate-300 hover:bg-white/5 md:hidden"
          aria-label={open ? es.dashboard.closeMenu : es.dashboard.openMenu}
          aria-expanded={open}
          aria-controls="dashboard-mobile-menu"
          onClick={() => setOpen((v) => !v)}
        >
          {open ? (
            <X className="size-6" aria-hidden="true" />
          ) : (
            <Menu className="size-6" aria-hidden="true" />
          )}
        </button>
      </div>
      {open && (
        <div id="dashboard-mobile-menu" className="border-t border-white/5 px-4 pb-4 md:hidden">
          <p className="py-3 text-sm font-medium text-slate-300">{es.dashboard.greeting(user.username)}</p>
          <nav aria-label={es.dashboard.navLabel} className="flex flex-col gap-1">
            {items.map((item) => (
              <NavLink key={item.to} to={item.to} className={linkClass}>
                {item.label}
              </NavLink>
            ))}
          </nav>
          <div className="mt-3 flex flex-col gap-1 border-t border-white/5 pt-3">
            <Link
              to="/dashboard/settings"
              className="flex items-center gap-2 rounded-lg px-3 py-2 text-sm text-slate-300 hover:bg-white/5"
            >
              <Settings className="size-4" aria-hidden="true" />
              {es.dashboard.accountSettings}
            </Link>
            <button
              type="button"
              onClick={() => void signOut()}
              className="flex items-center gap-2 rounded-lg px-3 py-2 text-left text-sm text-red-300 hover:bg-white/5"
            >
              <LogOut className="size-4" aria-hidden="true" />
              {es.dashboard.logout}
            </button>
          </div>
        </div>
      )}
    </header>
  );
}

/**
 * The user menu's trigger, drawn at once; the menu itself (Radix, its own chunk, ~25 KiB) is fetched
 * when the customer presses the trigger, and opens as soon as it arrives (issue 28).
 */
function UserMenuButton({ username }: { username: string }) {
  const [open, setOpen] = useState(false);
  const [Menu, setMenu] = useState<typeof UserMenuType | null>(null);
  if (Menu)
    return <Menu username={username} open={open} onOpenChange={setOpen} onSignOut={() => void signOut()} />;
  const press = () => {
    setOpen(true);
    void import('./UserMenu').then((m) => setMenu(() => m.UserMenu));
  };
  return (
    <button
      type="button"
      aria-haspopup="menu"
      aria-expanded={open}
      className={userMenuTrigger}
      onPointerDown={press}
      onClick={press}
    >
      <UserMenuLabel username={username} />
    </button>
  );
}
