/** The user menu's trigger, shared by the header (before the menu loads) and the menu itself. */
import { ChevronDown } from 'lucide-react';
import { es } from '../../i18n/es';

export const userMenuTrigger =
  'inline-flex items-center gap-2 rounded-lg px-3 py-2 text-sm font-medium text-slate-200 hover:bg-white/5';

/** The trigger's content: initial, greeting, chevron (the same before and after the menu loads). */
export function UserMenuLabel({ username }: { username: string }) {
  return (
    <>
      <span
        className="grid size-8 place-items-center rounded-full bg-emerald-500/20 font-semibold text-emerald-300 uppercase"
        aria-hidden="true"
      >
        {username.slice(0, 1)}
      </span>
      {es.dashboard.greeting(username)}
      <ChevronDown className="size-4" aria-hidden="true" />
    </>
  );
}
