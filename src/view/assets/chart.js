// A small live line chart (uPlot): the last two minutes of one series.
import { html } from 'htm/preact';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export function Chart({ label, unit, points, colour }) {
  const box = useRef(null);
  const plot = useRef(null);
  useEffect(() => {
    const el = box.current;
    plot.current = new uPlot(
      {
        width: Math.max(120, el.clientWidth),
        height: 90,
        legend: { show: false },
        cursor: { show: false },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.15)] } },
        axes: [
          {
            stroke: '#9aa4b2',
            grid: { stroke: 'rgba(255,255,255,0.06)' },
            ticks: { show: false },
            size: 22,
            font: '10px system-ui',
            values: (_u, ticks) => ticks.map(() => ''),
          },
          { stroke: '#9aa4b2', grid: { stroke: 'rgba(255,255,255,0.06)' }, ticks: { show: false }, size: 40, font: '10px system-ui' },
        ],
        series: [{}, { label, stroke: colour, width: 1.5, fill: `${colour}33`, points: { show: false } }],
      },
      [[], []],
      el,
    );
    const observer = new ResizeObserver(() => plot.current?.setSize({ width: Math.max(120, el.clientWidth), height: 90 }));
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.current?.destroy();
    };
  }, []);
  useEffect(() => {
    plot.current?.setData([points.map((p) => p[0]), points.map((p) => p[1])]);
  }, [points]);
  const last = points.length ? points[points.length - 1][1] : null;
  return html`<figure class="chart">
    <figcaption>${label} <strong>${last === null ? '—' : `${formatNumber(last)} ${unit}`}</strong></figcaption>
    <div ref=${box} class="chart-box" role="img" aria-label=${`${label} over the last two minutes`}></div>
  </figure>`;
}

export function formatNumber(n) {
  if (!Number.isFinite(n)) return '—';
  if (Math.abs(n) >= 100) return Math.round(n).toLocaleString('en');
  if (Math.abs(n) >= 10) return n.toFixed(1);
  return n.toFixed(2);
}
