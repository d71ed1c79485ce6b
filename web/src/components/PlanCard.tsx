import { CalendarClock, Check, Gauge, Zap } from 'lucide-react';
import type { ReactNode } from 'react';
import type { Plan } from '../api/types';
import { es } from '../i18n/es';
import { descriptionLines, formatDataSize, formatPrice, formatValidity } from '../lib/format';
import { speedLabel } from '../lib/speed';
import { ui } from './ui';

/** One plan: name, validity in years/months/days, data, speed (issue 35), description bullets, price in USD, an action. */
export function PlanCard({ plan, action }: { plan: Plan; action?: ReactNode }) {
  const lines = descriptionLines(plan.description);
  return (
    <article
      aria-labelledby={`plan-${plan.id}-name`}
      className={`${ui.card} flex h-full flex-col p-6 transition hover:border-emerald-500/40`}
    >
      <h3 id={`plan-${plan.id}-name`} className="text-xl font-semibold text-white">
        {plan.name}
      </h3>
      <p className="mt-2 inline-flex items-center gap-1.5 text-sm text-emerald-300">
        <CalendarClock className="size-4" aria-hidden="true" />
        <span className="sr-only">{es.plans.validity}: </span>
        {formatValidity(plan.validity)}
      </p>
      <p className="mt-1 inline-flex items-center gap-1.5 text-sm text-emerald-300">
        <Gauge className="size-4" aria-hidden="true" />
        {plan.data_gb === null ? es.plans.unlimitedData : es.plans.data(formatDataSize(plan.data_gb * 1e9))}
      </p>
      <p className="mt-1 inline-flex items-center gap-1.5 text-sm text-emerald-300">
        <Zap className="size-4" aria-hidden="true" />
        <span className="sr-only">{es.speed.label}: </span>
        {speedLabel(plan.speed_down_mbit, plan.speed_up_mbit)}
      </p>
      <p className="mt-5 text-3xl font-bold tracking-tight text-white">{formatPrice(plan.price)}</p>
      {lines.length > 0 && (
        <ul className="mt-5 flex-1 space-y-2.5 text-sm text-slate-300">
          {lines.map((line, i) => (
            <li key={i} className="flex gap-2">
              <Check className="mt-0.5 size-4 shrink-0 text-emerald-400" aria-hidden="true" />
              <span>{line}</span>
            </li>
          ))}
        </ul>
      )}
      {action && <div className="mt-6">{action}</div>}
    </article>
  );
}

/** The plans grid: one centred column for a single plan, otherwise up to three (spec). */
export function PlanGrid({ count, children }: { count: number; children: ReactNode }) {
  const columns = count === 1 ? 'mx-auto max-w-md grid-cols-1' : 'grid-cols-1 md:grid-cols-2 lg:grid-cols-3';
  return (
    <ul aria-label={es.plans.listLabel} className={`grid gap-6 ${columns}`}>
      {children}
    </ul>
  );
}
