import type { ReactNode } from 'react';
import { Brand } from './Brand';
import { ui } from './ui';

interface AuthCardProps {
  title: string;
  subtitle?: string;
  children: ReactNode;
  footer?: ReactNode;
  brandTo?: string;
}

/** The centred card of the login, register, recovery and maintenance pages. */
export function AuthCard({ title, subtitle, children, footer, brandTo }: AuthCardProps) {
  return (
    <div className="relative flex min-h-screen flex-col items-center justify-center overflow-hidden px-4 py-10">
      <div
        className="pointer-events-none absolute inset-0 bg-[radial-gradient(ellipse_at_top,rgba(16,185,129,0.15),transparent_55%),radial-gradient(ellipse_at_bottom,rgba(37,99,235,0.18),transparent_60%)]"
        aria-hidden="true"
      />
      <div className="relative w-full max-w-md">
        <div className="mb-8 flex justify-center">
          <Brand to={brandTo} />
        </div>
        <main className={`${ui.card} p-6 sm:p-8`}>
          <h1 className="text-2xl font-bold tracking-tight text-white">{title}</h1>
          {subtitle && <p className="mt-1.5 text-sm text-slate-400">{subtitle}</p>}
          <div className="mt-6">{children}</div>
        </main>
        {footer && <div className="mt-6 space-y-2 text-center text-sm text-slate-400">{footer}</div>}
      </div>
    </div>
  );
}
