import type { LucideIcon } from 'lucide-react';
import type { ReactNode } from 'react';

interface EmptyStateProps {
  icon: LucideIcon;
  title: string;
  text?: ReactNode;
  children?: ReactNode;
}

/** A designed "nothing here yet" state. */
export function EmptyState({ icon: Icon, title, text, children }: EmptyStateProps) {
  return (
    <div className="flex flex-col items-center gap-3 rounded-2xl border border-dashed border-slate-700 bg-navy-900/40 px-6 py-14 text-center">
      <span className="grid size-14 place-items-center rounded-2xl bg-emerald-500/10 text-emerald-400">
        <Icon className="size-7" aria-hidden="true" />
      </span>
      <h2 className="text-lg font-semibold text-white">{title}</h2>
      {text && <p className="max-w-md text-slate-400">{text}</p>}
      {children && <div className="mt-2 flex flex-wrap justify-center gap-3">{children}</div>}
    </div>
  );
}
