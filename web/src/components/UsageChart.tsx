import { formatBytes } from '../lib/format';

/**
 * Daily traffic as an inline SVG bar chart (no chart library on customer pages): one bar per day,
 * download stacked under upload. Each bar carries its day and numbers as a <title> (hover) and the
 * whole chart an accessible label.
 */
export function UsageChart({
  from,
  upload,
  download,
  label,
  dayLabel,
}: {
  /** First day, YYYY-MM-DD (UTC). */
  from: string;
  upload: number[];
  download: number[];
  label: (total: string) => string;
  dayLabel: (day: string, down: string, up: string) => string;
}) {
  const days = download.length;
  const totals = download.map((d, i) => d + (upload[i] ?? 0));
  const max = Math.max(1, ...totals);
  const width = 300;
  const height = 80;
  const slot = width / Math.max(1, days);
  const bar = Math.max(1, slot - 2);
  const start = Date.parse(`${from}T00:00:00Z`);
  const dayName = (i: number) =>
    new Intl.DateTimeFormat('es-ES', { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(
      new Date(start + i * 86_400_000),
    );
  const sum = totals.reduce((a, b) => a + b, 0);
  return (
    <svg
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={label(formatBytes(sum))}
      className="h-24 w-full"
      preserveAspectRatio="none"
    >
      <line x1="0" y1={height - 0.5} x2={width} y2={height - 0.5} className="stroke-slate-700" />
      {totals.map((total, i) => {
        const down = download[i] ?? 0;
        const up = upload[i] ?? 0;
        const hDown = (down / max) * (height - 4);
        const hUp = (up / max) * (height - 4);
        const x = i * slot + 1;
        return (
          <g key={i} data-testid="usage-bar">
            <title>{dayLabel(dayName(i), formatBytes(down), formatBytes(up))}</title>
            <rect x={x} y={height - hDown} width={bar} height={hDown} className="fill-sky-400" />
            <rect x={x} y={height - hDown - hUp} width={bar} height={hUp} className="fill-emerald-400" />
            {total === 0 && <rect x={x} y={height - 1} width={bar} height={1} className="fill-slate-700" />}
          </g>
        );
      })}
    </svg>
  );
}
