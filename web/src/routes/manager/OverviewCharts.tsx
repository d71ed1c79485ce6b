/**
 * The Resumen charts (uPlot, ~50 KB). This module is only ever loaded through `React.lazy` from
 * Overview.tsx, so the charting library is a chunk of its own that only the console downloads;
 * customer pages never fetch it. Each chart also carries its numbers as a visually hidden table
 * (screen readers, and what the component tests read).
 */
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { MetricsSeries } from '../../api/adminFleet';
import { ui } from '../../components/ui';
import { esFleet } from '../../i18n/es.manager.fleet';

const t = esFleet.charts;
const HEIGHT = 220;
const AXIS = { stroke: '#94a3b8', grid: { stroke: '#1e293b' }, ticks: { stroke: '#334155' } };
const COLORS = ['#34d399', '#38bdf8', '#f472b6', '#fbbf24', '#a78bfa', '#fb7185'];
const DAY_S = 86_400;
/** Whole days between the x axis' ticks (uPlot picks the first that leaves room for the labels). */
const DAY_INCRS = [1, 2, 3, 7, 14, 30, 61, 91, 182, 365].map((d) => d * DAY_S);

/** What a chart's values are: sums of money, counts (whole numbers) or bytes (KB/MB/GB axis). */
export type ValueKind = 'usd' | 'count' | 'bytes';

/**
 * The y axis from 0: its top and the step between ticks, at most 5 steps. Counts step by whole
 * numbers (1, 2, 5, 10…), bytes by 1, 2 or 5 × a power of ten of their unit (200 B, 1 KB, 2 MB…)
 * so no two ticks read alike ("1 B, 1 B, 0 B" were fractions of a byte, rounded).
 */
export function yScale(kind: ValueKind, max: number): { top: number; step: number } {
  const high = Math.max(0, max);
  const unit =
    kind === 'bytes' ? 1024 ** Math.max(0, Math.floor(Math.log(Math.max(high, 1)) / Math.log(1024))) : 1;
  const steps: number[] = [];
  for (let p = kind === 'usd' ? -2 : 0; p <= 15; p++)
    for (const m of [1, 2, 5]) steps.push(m * 10 ** p * unit);
  const step = steps.find((s) => Math.ceil(high / s) <= 5) ?? steps[steps.length - 1]!;
  const top = Math.max(step, Math.ceil(high / step) * step);
  return { top, step };
}

/** The ticks of `yScale`: 0, step, 2·step… top. */
export function ySplits(kind: ValueKind, max: number): number[] {
  const { top, step } = yScale(kind, max);
  const out: number[] = [];
  for (let i = 0; i * step <= top + step / 1e6; i++) out.push(Math.round(i * step * 100) / 100);
  return out;
}

/** A time a server's agent was away (ISO times; `until` null while ongoing), for the shading. */
export interface Outage {
  name: string;
  since: string;
  until: string | null;
}

interface Line {
  label: string;
  values: number[];
  color: string;
}

/** A uPlot plugin that shades each outage (from its start to its end, or now) in red behind the lines. */
function outagePlugin(outages: Outage[]): uPlot.Plugin {
  return {
    hooks: {
      drawAxes: (u: uPlot) => {
        const { ctx, bbox } = u;
        const [xMin, xMax] = [u.scales.x?.min ?? 0, u.scales.x?.max ?? 0];
        const now = Date.now() / 1000;
        for (const o of outages) {
          const from = Math.max(xMin, Date.parse(o.since) / 1000);
          const to = Math.min(xMax, o.until ? Date.parse(o.until) / 1000 : now);
          if (from > xMax || to < xMin) continue;
          const left = u.valToPos(from, 'x', true);
          // An outage that began after the last day's point, or lasted minutes, still shows.
          const right = Math.max(u.valToPos(Math.max(to, from), 'x', true), left + 6 * devicePixel());
          ctx.save();
          ctx.fillStyle = 'rgba(239, 68, 68, 0.18)';
          ctx.fillRect(Math.min(left, bbox.left + bbox.width - 6), bbox.top, right - left, bbox.height);
          ctx.restore();
        }
      },
    },
  };
}

function devicePixel(): number {
  return typeof window === 'undefined' ? 1 : window.devicePixelRatio || 1;
}

function Chart({
  title,
  days,
  lines,
  kind,
  format,
  bars = false,
  outages = [],
}: {
  title: string;
  days: string[];
  lines: Line[];
  kind: ValueKind;
  format: (v: number) => string;
  bars?: boolean;
  outages?: Outage[];
}) {
  const box = useRef<HTMLDivElement>(null);
  // Rebuilt only when the numbers change (the props' arrays are new on every render).
  const signature = JSON.stringify([days, lines, bars, kind, outages]);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const max = Math.max(0, ...lines.flatMap((l) => l.values));
    const opts: uPlot.Options = {
      width: el.clientWidth || 600,
      height: HEIGHT,
      // The legend follows the pointer: the day and each line's value, in Spanish.
      legend: { show: true },
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      scales: {
        x: { time: true },
        y: { range: () => [0, yScale(kind, max).top] },
      },
      axes: [
        {
          ...AXIS,
          incrs: DAY_INCRS,
          values: (_u, splits) => splits.map((s) => t.day(new Date(s * 1000).toISOString().slice(0, 10))),
        },
        {
          ...AXIS,
          size: 70,
          splits: () => ySplits(kind, max),
          values: (_u, splits) => splits.map(format),
        },
      ],
      series: [
        {
          label: t.day_,
          value: (_u: uPlot, v: number | null) =>
            v === null ? '—' : t.day(new Date(v * 1000).toISOString().slice(0, 10)),
        },
        ...lines.map((l) => ({
          label: l.label,
          stroke: l.color,
          fill: bars ? `${l.color}99` : `${l.color}22`,
          width: bars ? 0 : 2,
          value: (_u: uPlot, v: number | null) => (v === null ? '—' : format(v)),
          ...(bars && uPlot.paths.bars
            ? { paths: uPlot.paths.bars({ size: [0.7, 40] }), points: { show: false } }
            : {}),
        })),
      ],
      plugins: outages.length ? [outagePlugin(outages)] : [],
    };
    const data: uPlot.AlignedData = [
      days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000),
      ...lines.map((l) => l.values),
    ];
    const chart = new uPlot(opts, data, el);
    // Follows the card's width (phones, a resized window).
    const resize =
      typeof ResizeObserver === 'undefined'
        ? null
        : new ResizeObserver(() => chart.setSize({ width: el.clientWidth, height: HEIGHT }));
    resize?.observe(el);
    return () => {
      resize?.disconnect();
      chart.destroy();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `signature` stands for days, lines, bars, kind and outages
  }, [signature, format]);

  return (
    <figure className={`${ui.card} p-5`}>
      <figcaption className="mb-3 font-semibold text-white">{title}</figcaption>
      <div ref={box} aria-hidden="true" className="w-full" />
      {outages.length > 0 && (
        <p className="mt-2 flex items-center gap-2 text-xs text-red-200">
          <span aria-hidden="true" className="inline-block h-3 w-4 rounded-sm bg-red-500/40" />
          {t.outage(outages)}
        </p>
      )}
      <table className="sr-only">
        <caption>{title}</caption>
        <thead>
          <tr>
            <th scope="col">{t.range}</th>
            {lines.map((l) => (
              <th key={l.label} scope="col">
                {l.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {days.map((d, i) => (
            <tr key={d}>
              <th scope="row">{d}</th>
              {lines.map((l) => (
                <td key={l.label}>{format(l.values[i] ?? 0)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

/** Peers and peers online per server, with the agent's state: plain bars, one row per server. */
function ServersOnline({ servers }: { servers: MetricsSeries['servers'] }) {
  const max = Math.max(1, ...servers.map((s) => s.peers));
  return (
    <figure className={`${ui.card} p-5`}>
      <figcaption className="mb-3 font-semibold text-white">{t.serversOnline}</figcaption>
      {servers.length === 0 ? (
        <p className="text-slate-400">{t.noServers}</p>
      ) : (
        <ul className="space-y-3">
          {servers.map((s) => (
            <li
              key={s.id}
              aria-label={`${s.name}: ${t.peers} ${s.peers}, ${t.onlinePeers} ${s.online_peers}`}
            >
              <div className="mb-1 flex justify-between gap-3 text-sm">
                <span className="text-slate-100">
                  <span
                    aria-hidden="true"
                    className={`mr-2 inline-block size-2 rounded-full ${s.agent_online ? 'bg-emerald-400' : 'bg-slate-500'}`}
                  />
                  {s.name}{' '}
                  <span className="text-slate-400">({s.agent_online ? t.agentOnline : t.agentOffline})</span>
                </span>
                <span className="text-slate-300">
                  {t.onlinePeers}: {t.number(s.online_peers)} / {t.number(s.peers)}
                </span>
              </div>
              <div className="relative h-2.5 overflow-hidden rounded-full bg-slate-800" aria-hidden="true">
                <div
                  className="absolute inset-y-0 left-0 bg-sky-500/40"
                  style={{ width: `${(s.peers / max) * 100}%` }}
                />
                <div
                  className="absolute inset-y-0 left-0 bg-emerald-400"
                  style={{ width: `${(s.online_peers / max) * 100}%` }}
                />
              </div>
            </li>
          ))}
        </ul>
      )}
    </figure>
  );
}

export default function OverviewCharts({ data }: { data: MetricsSeries }) {
  // Outages on the overview (the peers' and the traffic's charts): each time a server's agent was
  // away within the period, and the one going on now (an answer without `outages`, or an agent
  // whose instance died unheard, has only `offline_since`), oldest first.
  const last = Date.parse(`${data.days[data.days.length - 1] ?? data.to}T00:00:00Z`) + 86_400_000;
  const outages: Outage[] = data.servers
    .flatMap((s) => {
      const past: Outage[] = (s.outages ?? []).map((o) => ({ name: s.name, since: o.from, until: o.to }));
      const now = !s.agent_online && s.offline_since && !past.some((o) => o.until === null);
      return now ? [...past, { name: s.name, since: s.offline_since!, until: null }] : past;
    })
    .filter((o) => Date.parse(o.since) < last)
    .sort((a, b) => Date.parse(a.since) - Date.parse(b.since));
  const traffic = data.servers.map((s, i) => ({
    label: s.name,
    values: s.rx_bytes.map((rx, d) => rx + (s.tx_bytes[d] ?? 0)),
    color: COLORS[i % COLORS.length]!,
  }));
  return (
    <div className="grid gap-4 lg:grid-cols-2">
      {data.revenue_usd && (
        <Chart
          title={t.revenue}
          days={data.days}
          lines={[{ label: t.revenue, values: data.revenue_usd, color: COLORS[0]! }]}
          kind="usd"
          format={t.usd}
          bars
        />
      )}
      <Chart
        title={t.customers}
        days={data.days}
        lines={[{ label: t.customers, values: data.new_customers, color: COLORS[1]! }]}
        kind="count"
        format={t.number}
        bars
      />
      <Chart
        title={t.activePeers}
        days={data.days}
        lines={[{ label: t.activePeers, values: data.active_peers, color: COLORS[2]! }]}
        kind="count"
        format={t.number}
        outages={outages}
      />
      <ServersOnline servers={data.servers} />
      {traffic.length > 0 && (
        <Chart
          title={t.traffic}
          days={data.days}
          lines={traffic}
          kind="bytes"
          format={t.bytes}
          outages={outages}
        />
      )}
    </div>
  );
}
