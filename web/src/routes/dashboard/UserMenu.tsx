/**
 * The dashboard header's user menu (Radix dropdown): its own chunk, with Radix and floating-ui
 * (~25 KiB), fetched when the customer reaches for the menu (`UserMenuButton` in DashboardLayout, which holds whether it is open),
 * not with the dashboard's first view (issue 28).
 */
import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { Link } from 'react-router';
import { LogOut, Settings } from 'lucide-react';
import { es } from '../../i18n/es';
import { UserMenuLabel, userMenuTrigger } from './UserMenuLabel';

export function UserMenu({
  username,
  open,
  onOpenChange,
  onSignOut,
}: {
  username: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onSignOut: () => void;
}) {
  const itemClass =
    'flex cursor-pointer items-center gap-2 rounded-md px-3 py-2 text-sm text-slate-200 outline-none data-[highlighted]:bg-white/10 data-[highlighted]:text-white';
  return (
    <DropdownMenu.Root open={open} onOpenChange={onOpenChange}>
      <DropdownMenu.Trigger className={userMenuTrigger}>
        <UserMenuLabel username={username} />
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          align="end"
          sideOffset={8}
          className="z-50 min-w-56 rounded-xl border border-slate-700 bg-navy-900 p-1 shadow-2xl shadow-black/40"
        >
          <DropdownMenu.Item asChild className={itemClass}>
            <Link to="/dashboard/settings">
              <Settings className="size-4" aria-hidden="true" />
              {es.dashboard.accountSettings}
            </Link>
          </DropdownMenu.Item>
          <DropdownMenu.Separator className="my-1 h-px bg-slate-700" />
          <DropdownMenu.Item className={`${itemClass} text-red-300`} onSelect={onSignOut}>
            <LogOut className="size-4" aria-hidden="true" />
            {es.dashboard.logout}
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
