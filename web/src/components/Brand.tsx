import { ShieldCheck } from 'lucide-react';
import { Link } from 'react-router';
import { useRuntimeConfig } from '../config/runtime';

/** Logo mark + company name (from the runtime config); a link when `to` is given. */
export function Brand({ to, className = '' }: { to?: string; className?: string }) {
  const { company_name } = useRuntimeConfig();
  const classes = `inline-flex items-center gap-2 font-semibold text-white ${className}`;
  const content = (
    <>
      <span className="grid size-9 shrink-0 place-items-center rounded-xl bg-gradient-to-br from-emerald-400 to-emerald-600 text-navy-950 shadow-lg shadow-emerald-500/20">
        <ShieldCheck className="size-5" aria-hidden="true" />
      </span>
      <span className="truncate text-lg tracking-tight">{company_name}</span>
    </>
  );
  if (!to) return <span className={classes}>{content}</span>;
  return (
    <Link to={to} className={classes}>
      {content}
    </Link>
  );
}
