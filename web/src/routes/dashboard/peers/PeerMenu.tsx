/**
 * A peer's actions menu (Radix dropdown with floating-ui): its own chunk, fetched when the customer
 * first presses a row's ⋮ (`PeerMenuButton` in `PeerList.tsx`, which draws the trigger and holds
 * whether it is open), not with the page's first view (issue 32).
 */
import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { ArrowLeftRight, EllipsisVertical, Gamepad2, Info, KeyRound, Link2, Router } from 'lucide-react';
import type { ReactNode } from 'react';
import type { Peer } from '../../../api/peers';
import { es } from '../../../i18n/es';
import type { PeerIntent, PeerListProps } from './PeerList';
import { peerMenuTrigger } from './peerMenuTrigger';
import { peerActionable } from './PeerStatus';

const t = es.dashboard.peers;

const menuItemClass =
  'flex cursor-pointer items-center gap-2 rounded-md px-3 py-2 text-sm text-slate-200 outline-none data-[disabled]:cursor-not-allowed data-[disabled]:opacity-40 data-[highlighted]:bg-white/10 data-[highlighted]:text-white';

/** The actions menu (⋮) of one peer: what a customer does now and then, after installing. */
export function PeerMenu({
  peer,
  onIntent,
  open,
  onOpenChange,
}: {
  peer: Peer;
  onIntent: PeerListProps['onIntent'];
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const enabled = peerActionable(peer);
  const item = (intent: PeerIntent, label: string, icon: ReactNode, disabled = !enabled) => (
    <DropdownMenu.Item className={menuItemClass} disabled={disabled} onSelect={() => onIntent(intent, peer)}>
      {icon}
      {label}
    </DropdownMenu.Item>
  );
  const icon = (Icon: typeof Link2) => <Icon className="size-4" aria-hidden="true" />;

  return (
    /* Non-modal: the dialogs it opens must get focus and pointer events back when it closes. */
    <DropdownMenu.Root modal={false} open={open} onOpenChange={onOpenChange}>
      <DropdownMenu.Trigger className={peerMenuTrigger} aria-label={t.menuLabel(peer.name)}>
        <EllipsisVertical className="size-5" aria-hidden="true" />
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          align="end"
          sideOffset={6}
          className="z-30 min-w-56 rounded-xl border border-slate-700 bg-navy-900 p-1 shadow-2xl shadow-black/40"
        >
          {item('regenerateMirror', t.menu.regenerateMirror, icon(Link2))}
          {item('regenerate', t.menu.regenerate, icon(KeyRound))}
          {item('changeServer', t.menu.changeServer, icon(ArrowLeftRight))}
          <DropdownMenu.Separator className="my-1 h-px bg-slate-700" />
          {item('mikrotik', t.menu.mikrotik, icon(Router))}
          {/* The room-only tunnel exists only while the peer is in a room. */}
          {peer.party !== null && item('roomConfig', t.menu.roomConfig, icon(Gamepad2))}
          <DropdownMenu.Separator className="my-1 h-px bg-slate-700" />
          {item('details', t.menu.details, icon(Info), false)}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
