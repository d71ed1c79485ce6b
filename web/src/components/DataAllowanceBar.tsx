import { es } from '../i18n/es';
import { ProgressBar } from './ProgressBar';
import { formatDataSize } from '../lib/format';

const t = es.dashboard.peers.details;

/**
 * The period's data allowance as a progress bar: what was used of how much, green, amber from 80 %
 * (the customer was told), red when used up (the peer is off until a plan is added).
 */
export function DataAllowanceBar({ used, allowance }: { used: number; allowance: number }) {
  const percent = Math.min(100, Math.floor((used / allowance) * 100));
  const colour = percent >= 100 ? 'bg-red-500' : percent >= 80 ? 'bg-amber-400' : 'bg-emerald-500';
  const text = t.dataUsed(formatDataSize(Math.min(used, allowance)), formatDataSize(allowance), percent);
  return (
    <div>
      <p className="mb-1 flex justify-between gap-2 text-sm">
        <span className="text-slate-400">{t.dataTitle}</span>
        <span className="text-slate-200">{text}</span>
      </p>
      <ProgressBar label={t.dataTitle} value={percent} max={100} valueText={text} tone={colour} />
      {percent >= 100 && <p className="mt-1 text-sm text-red-300">{t.dataExhausted}</p>}
    </div>
  );
}
