/**
 * Resumen's charts (issue 34): the legend in Spanish (uPlot's default first entry read
 * "Time: --"), byte axes in KB/MB/GB with no two ticks alike (they read "1 B, 1 B, 0 B"), whole
 * numbers on count axes, and an agent's outage shaded on the charts and said under them.
 * uPlot draws on a canvas jsdom does not have: a stand-in keeps the options each chart was given,
 * and the test calls the axis and legend functions uPlot would call.
 */
import { render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { MetricsSeries } from '../../api/adminFleet';
import OverviewCharts from './OverviewCharts';

interface Axis {
  splits?: (...args: unknown[]) => number[];
  values?: (u: unknown, splits: number[]) => string[];
}
interface Plot {
  opts: {
    series: { label?: string; value?: (u: unknown, v: number | null) => string }[];
    axes: Axis[];
    legend?: { show?: boolean };
    plugins?: { hooks: { drawAxes: (u: unknown) => void } }[];
  };
  data: number[][];
}
const charts = vi.hoisted(() => [] as Plot[]);
vi.mock('uplot', () => {
  class FakePlot {
    static tzDate = (d: Date) => d;
    static paths = { bars: () => () => null };
    constructor(opts: Plot['opts'], data: number[][]) {
      charts.push({ opts, data });
    }
    setSize() {}
    destroy() {}
  }
  return { default: FakePlot };
});

const GB = 1024 ** 3;
const MB = 1024 ** 2;
const series = (over: Partial<MetricsSeries['servers'][number]> = {}): MetricsSeries => ({
  from: '2026-01-10',
  to: '2026-01-12',
  days: ['2026-01-10', '2026-01-11', '2026-01-12'],
  new_customers: [2, 0, 1],
  active_peers: [10, 11, 12],
  servers: [
    {
      id: 3,
      name: 'Madrid',
      agent_online: true,
      offline_since: null,
      peers: 12,
      online_peers: 4,
      rx_bytes: [2 * GB, 300 * MB, 0],
      tx_bytes: [GB, 0, 5],
      ...over,
    },
  ],
});

/** The y axis' labels as uPlot would draw them: its splits, through its values function. */
function yLabels(plot: Plot): string[] {
  const axis = plot.opts.axes[1]!;
  expect(axis.splits, 'the y axis chooses its own ticks').toBeTypeOf('function');
  return axis.values!(null, axis.splits!(null, 1, 0, 0, 0, 0));
}
const chartOf = (label: string) => charts.find((c) => c.opts.series[1]?.label === label)!;

describe('Resumen charts', () => {
  it('reads in Spanish, bytes in KB/MB/GB and counts in whole numbers', () => {
    charts.length = 0;
    render(<OverviewCharts data={series()} />);
    const traffic = chartOf('Madrid');
    const customers = chartOf('Clientes nuevos por día');
    // The legend's first entry is the day, never "Time" / "--".
    for (const c of [traffic, customers]) {
      expect(c.opts.legend?.show).toBe(true);
      expect(c.opts.series[0]!.label).toBe('Día');
      expect(c.opts.series[0]!.value!(null, Date.UTC(2026, 0, 11) / 1000)).toBe('11 ene');
      expect(c.opts.series[0]!.value!(null, null)).toBe('—');
    }
    // 3 GB on the busiest day: ticks 0 to 3 GB by whole gigabytes, each distinct.
    expect(yLabels(traffic)).toEqual(['0 B', '1 GB', '2 GB', '3 GB']);
    expect(traffic.opts.series[1]!.value!(null, 300 * MB)).toBe('300 MB');
    // 2 new customers at most: 0, 1, 2 (never 0,5 or 1,5).
    expect(yLabels(customers)).toEqual(['0', '1', '2']);
    expect(yLabels(chartOf('Peers activos'))).toEqual(['0', '5', '10', '15']);
  });

  it('gives a server of a few bytes a few distinct byte ticks', () => {
    charts.length = 0;
    render(<OverviewCharts data={series({ rx_bytes: [1, 2, 3], tx_bytes: [1, 1, 1] })} />);
    expect(yLabels(chartOf('Madrid'))).toEqual(['0 B', '1 B', '2 B', '3 B', '4 B']);
  });

  it('marks the outage of a server whose agent is away, from when it left', () => {
    charts.length = 0;
    const since = '2026-01-11T06:00:00.000Z';
    render(<OverviewCharts data={series({ agent_online: false, offline_since: since })} />);
    expect(
      screen.getAllByText('Sin conexión (sombreado en rojo): Madrid desde el 11 ene, 06:00 UTC'),
    ).toHaveLength(2);
    // The shading starts where 11 Jan 06:00 falls on the x axis and runs to the chart's end.
    const traffic = chartOf('Madrid');
    const rects: number[][] = [];
    const ctx = {
      save() {},
      restore() {},
      fillStyle: '',
      fillRect: (...r: number[]) => rects.push(r),
    };
    const [x0, x1] = [Date.UTC(2026, 0, 10) / 1000, Date.UTC(2026, 0, 12) / 1000];
    traffic.opts.plugins![0]!.hooks.drawAxes({
      ctx,
      bbox: { left: 0, top: 0, width: 480, height: 200 },
      scales: { x: { min: x0, max: x1 } },
      valToPos: (v: number) => ((v - x0) / (x1 - x0)) * 480,
    });
    // The last 18 of the 48 hours shown: from 300 px (30 h in) to the right edge, 480 px.
    expect(rects).toEqual([[300, 0, 180, 200]]);
    // With the agent back (and no outage history in the answer), nothing is shaded or said.
    charts.length = 0;
    render(<OverviewCharts data={series()} />);
    expect(chartOf('Madrid').opts.plugins ?? []).toHaveLength(0);
  });

  it('marks an outage that is over: shaded from its start to its end, and named with both', () => {
    charts.length = 0;
    const outage = { from: '2026-01-11T02:00:00.000Z', to: '2026-01-11T04:10:00.000Z' };
    render(<OverviewCharts data={series({ agent_online: true, outages: [outage] })} />);
    expect(
      screen.getAllByText('Sin conexión (sombreado en rojo): Madrid el 11 ene de 02:00 a 04:10 UTC'),
    ).toHaveLength(2);
    const rects: number[][] = [];
    const ctx = { save() {}, restore() {}, fillStyle: '', fillRect: (...r: number[]) => rects.push(r) };
    const [x0, x1] = [Date.UTC(2026, 0, 10) / 1000, Date.UTC(2026, 0, 12) / 1000];
    chartOf('Peers activos').opts.plugins![0]!.hooks.drawAxes({
      ctx,
      bbox: { left: 0, top: 0, width: 480, height: 200 },
      scales: { x: { min: x0, max: x1 } },
      valToPos: (v: number) => ((v - x0) / (x1 - x0)) * 480,
    });
    // 48 hours over 480 px, 10 px an hour: 26 h in (11 Jan 02:00) to 28 h 10 min in (04:10).
    expect(rects).toHaveLength(1);
    const [left, top, width, height] = rects[0]!;
    expect([left, top, height]).toEqual([260, 0, 200]);
    expect(width).toBeCloseTo(130 / 6, 6);
  });

  it('names an outage over two days with both dates, and one still going on as ongoing', () => {
    charts.length = 0;
    const outages = [
      { from: '2026-01-10T23:00:00.000Z', to: '2026-01-11T01:30:00.000Z' },
      { from: '2026-01-12T05:00:00.000Z', to: null },
    ];
    render(
      <OverviewCharts data={series({ agent_online: false, offline_since: outages[1]!.from, outages })} />,
    );
    expect(
      screen.getAllByText(
        'Sin conexión (sombreado en rojo): Madrid del 10 ene, 23:00 al 11 ene, 01:30 UTC; Madrid desde el 12 ene, 05:00 UTC',
      ),
    ).toHaveLength(2);
  });
});
