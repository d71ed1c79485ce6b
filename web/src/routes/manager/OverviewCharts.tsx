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

interface Line {
  label: string;
  values: number[];
  color: string;
}

function Chart({
  title,
  days,
  lines,
  format,
  bars = false,
}: {
  title: string;
  days: string[];
  lines: Line[];
  format: (v: number) => string;
  bars?: boolean;
}) {
  const box = useRef<HTMLDivElement>(null);
  // Rebuilt only when the numbers change (the props' arrays are new on every render).
  const signature = JSON.stringify([days, lines, bars]);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const opts: uPlot.Options = {
      width: el.clientWidth || 600,
      height: HEIGHT,
      legend: { show: lines.length > 1 },
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      scales: { x: { time: true }, y: { range: (_u, min, max) => [Math.min(0, min), Math.max(1, max)] } },
      axes: [
        {
          ...AXIS,
          values: (_u, splits) => splits.map((s) => t.day(new Date(s * 1000).toISOString().slice(0, 10))),
        },
        { ...AXIS, size: 70, values: (_u, splits) => splits.map(format) },
      ],
      series: [
        {},
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
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `signature` stands for days, lines and bars
  }, [signature, format]);

  return (
    <figure className={`${ui.card} p-5`}>
      <figcaption className="mb-3 font-semibold text-white">{title}</figcaption>
      <div ref={box} aria-hidden="true" className="w-full" />
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
          format={t.usd}
          bars
        />
      )}
      <Chart
        title={t.customers}
        days={data.days}
        lines={[{ label: t.customers, values: data.new_customers, color: COLORS[1]! }]}
        format={t.number}
        bars
      />
      <Chart
        title={t.activePeers}
        days={data.days}
        lines={[{ label: t.activePeers, values: data.active_peers, color: COLORS[2]! }]}
        format={t.number}
      />
      <ServersOnline servers={data.servers} />
      {traffic.length > 0 && <Chart title={t.traffic} days={data.days} lines={traffic} format={t.bytes} />}
    </div>
  );
}
