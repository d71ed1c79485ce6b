import { Menu, X } from 'lucide-react';
import { useId, useRef } from 'react';
import type { ReactNode } from 'react';
import { Link, NavLink } from 'react-router';
import type { PublicSettings } from '../api/types';
import { useRuntimeConfig } from '../config/runtime';
import { es } from '../i18n/es';
import { close, flip } from '../lib/flip';
import { footerYear } from '../lib/year';
import { Brand } from './Brand';
import { ui } from './ui';

/** Header + footer around the public marketing pages (landing, plans). */
export function PublicShell({ settings, children }: { settings: PublicSettings; children: ReactNode }) {
  return (
    <div className="flex min-h-screen flex-col">
      <PublicHeader settings={settings} />
      <main className="flex-1">{children}</main>
      <PublicFooter />
    </div>
  );
}

function PublicHeader({ settings }: { settings: PublicSettings }) {
  const toggle = useRef<HTMLButtonElement>(null);
  const menuId = useId();
  const navLink = ({ isActive }: { isActive: boolean }) =>
    `rounded-lg px-3 py-2 text-sm font-medium transition ${isActive ? 'text-white' : 'text-slate-300 hover:text-white'}`;

  const links = (
    <>
      {settings.show_landing && (
        <NavLink to="/" end className={navLink}>
          {es.nav.home}
        </NavLink>
      )}
      <NavLink to="/plans" className={navLink}>
        {es.nav.plans}
      </NavLink>
      <NavLink to="/login" className={navLink}>
        {es.nav.login}
      </NavLink>
      {settings.allow_registration && (
        <Link to="/register" className={`${ui.buttonPrimary} py-2 text-sm`}>
          {es.nav.register}
        </Link>
      )}
    </>
  );

  // The menu opens on the first tap, also before the application has arrived: its state lives in
  // the page (`lib/flip.ts`; the boot script flips it until React takes the page over). One list of
  // links for both layouts: a row beside the brand from `md`, under it on a phone, shown there while
  // the toggle (`peer`) says it is open.
  return (
    <header className="sticky top-0 z-30 border-b border-white/5 bg-navy-950/80 backdrop-blur">
      <div className="mx-auto flex min-h-16 max-w-6xl flex-wrap items-center justify-between px-4 sm:px-6">
        <Brand to={settings.show_landing ? '/' : '/plans'} />
        <button
          ref={toggle}
          type="button"
          data-flip=""
          onClick={(event) => flip(event.currentTarget)}
          className="peer group rounded-lg p-2 text-slate-300 hover:bg-white/5 md:hidden"
          aria-controls={menuId}
          aria-label={es.dashboard.openMenu}
          data-label={es.dashboard.closeMenu}
          aria-expanded={false}
        >
          <Menu className="size-6 group-aria-expanded:hidden" aria-hidden="true" />
          <X className="hidden size-6 group-aria-expanded:block" aria-hidden="true" />
        </button>
        <nav
          id={menuId}
          aria-label={es.nav.mainNavigation}
          className="-mx-4 hidden w-[calc(100%+2rem)] flex-col gap-1 border-t border-white/5 px-4 py-3 peer-aria-expanded:flex md:mx-0 md:flex md:w-auto md:flex-row md:items-center md:border-0 md:p-0"
          onClick={() => close(toggle.current)}
        >
          {links}
        </nav>
      </div>
    </header>
  );
}

function PublicFooter() {
  const { company_name, support_url } = useRuntimeConfig();
  return (
    <footer className="border-t border-white/5 bg-navy-950">
      <div className="mx-auto flex max-w-6xl flex-col gap-3 px-4 py-8 text-sm text-slate-400 sm:flex-row sm:items-center sm:justify-between sm:px-6">
        <p>{es.footer.rights(company_name, footerYear())}</p>
        <div className="flex flex-wrap items-center gap-4">
          {support_url && (
            <a href={support_url} target="_blank" rel="noopener noreferrer" className="hover:text-white">
              {es.footer.support}
            </a>
          )}
          <span className="text-xs text-slate-400">{es.footer.wireguardNote}</span>
        </div>
      </div>
    </footer>
  );
}
