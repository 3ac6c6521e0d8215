// The dashboard's chart of views and clicks per day, drawn with uPlot on a canvas. This module (and
// uPlot with it) is a chunk of its own (its small stylesheet goes with the panel's: main.tsx), loaded when the dashboard first shows a chart. The canvas is
// hidden from assistive technology: the dashboard gives the same numbers as a table.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface DayPoint {
  date: string;
  views: number;
  clicks: number;
}

const HEIGHT = 220;

/** A colour of the page's palette (the chart follows the light or dark scheme). */
function cssColour(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

/** A UTC day (seconds since the epoch) in the panel's language. */
function formatDay(ts: number): string {
  return new Intl.DateTimeFormat(document.documentElement.lang || undefined, {
    dateStyle: 'medium',
    timeZone: 'UTC',
  }).format(new Date(ts * 1000));
}

export function ViewsChart({
  days,
  labels,
}: {
  days: DayPoint[];
  labels: { day: string; views: string; clicks: string };
}) {
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const target = box.current;
    if (!target) return;
    const xs = days.map((day) => Date.parse(`${day.date}T00:00:00Z`) / 1000);
    const fg = cssColour('--fg', '#1b1f24');
    const line = cssColour('--line', '#d0d7de');
    const axis = { stroke: fg, grid: { stroke: line, width: 1 }, ticks: { stroke: line, width: 1 } };
    const chart = new uPlot(
      {
        width: Math.max(target.clientWidth, 200),
        height: HEIGHT,
        // Days are UTC dates: show them as such, whatever the browser's zone.
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(max, 4)] } },
        axes: [axis, { ...axis, size: 48 }],
        series: [
          {
            // The legend's day in the panel's language (uPlot's own would say "Time" and "am").
            label: labels.day,
            value: (_chart, ts) => (ts === null ? '--' : formatDay(ts)),
          },
          {
            label: labels.views,
            stroke: cssColour('--accent', '#0b5cad'),
            width: 2,
            points: { show: false },
          },
          { label: labels.clicks, stroke: '#b35900', width: 2, dash: [6, 4], points: { show: false } },
        ],
      },
      [xs, days.map((day) => day.views), days.map((day) => day.clicks)],
      target,
    );
    const resize = new ResizeObserver(() =>
      chart.setSize({ width: Math.max(target.clientWidth, 200), height: HEIGHT }),
    );
    resize.observe(target);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [days, labels.day, labels.views, labels.clicks]);

  return <div ref={box} class="views-chart" aria-hidden="true" />;
}
