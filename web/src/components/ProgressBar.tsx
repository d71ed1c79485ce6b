/** A labelled progress bar (role="progressbar"): `value` of `max`, filled in `tone` (a bg- class). */
export function ProgressBar({
  label,
  value,
  max,
  valueText,
  tone = 'bg-emerald-500',
}: {
  label: string;
  value: number;
  max: number;
  valueText?: string;
  tone?: string;
}) {
  const percent = max <= 0 ? 100 : Math.min(100, (value / max) * 100);
  return (
    <div
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={max}
      aria-valuenow={value}
      aria-valuetext={valueText}
      className="h-2.5 overflow-hidden rounded-full bg-slate-800"
    >
      <div className={`h-full rounded-full transition-all ${tone}`} style={{ width: `${percent}%` }} />
    </div>
  );
}
