// Bar charts drawn as SVG: four small charts need no library, and SVG keeps their text readable by screen readers
// and searchable on the page.

export interface Bar {
  label: string;
  value: number;
}

const WIDTH = 640;
const HEIGHT = 180;
const PAD = { top: 12, right: 8, bottom: 40, left: 36 };
/** About how wide one character of an axis label is, in the chart's units. */
const LABEL_CHAR_WIDTH = 6.5;

/** A titled bar chart; its summary (role="img") names the largest bars for people who cannot see it. */
export function BarChart({ id, title, bars, unit }: { id: string; title: string; bars: Bar[]; unit: string }) {
  const max = Math.max(1, ...bars.map((b) => b.value));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const step = plotW / Math.max(1, bars.length);
  const barW = Math.max(1, step * 0.8);
  const total = bars.reduce((s, b) => s + b.value, 0);
  const top = [...bars]
    .sort((a, b) => b.value - a.value)
    .slice(0, 3)
    .filter((b) => b.value > 0);
  const summary =
    bars.length === 0 || total === 0
      ? `${title}: nothing yet.`
      : `${title}: ${total} ${unit} in all; most: ${top.map((b) => `${b.label} (${b.value})`).join(", ")}.`;
  // Label every bar when they fit, else about eight evenly spaced.
  const labelEvery = bars.length <= 12 ? 1 : Math.ceil(bars.length / 8);
  // Labels wider than their bar take two rows, alternating, so neighbours never overlap.
  const stagger = bars.some((b) => b.label.length * LABEL_CHAR_WIDTH > step * labelEvery);
  return (
    <figure class="chart" aria-labelledby={`${id}-title`}>
      <figcaption id={`${id}-title`}>{title}</figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={summary} preserveAspectRatio="xMidYMid meet">
        <line x1={PAD.left} y1={PAD.top + plotH} x2={WIDTH - PAD.right} y2={PAD.top + plotH} class="axis" />
        <text x={PAD.left - 6} y={PAD.top + 4} class="tick" text-anchor="end">
          {max}
        </text>
        <text x={PAD.left - 6} y={PAD.top + plotH} class="tick" text-anchor="end">
          0
        </text>
        {bars.map((b, i) => {
          const h = (b.value / max) * plotH;
          const x = PAD.left + i * step + (step - barW) / 2;
          return (
            <g key={b.label}>
              <rect x={x} y={PAD.top + plotH - h} width={barW} height={h} class="bar">
                <title>{`${b.label}: ${b.value}`}</title>
              </rect>
              {i % labelEvery === 0 && (
                <text
                  x={x + barW / 2}
                  y={stagger && (i / labelEvery) % 2 === 1 ? HEIGHT - 6 : HEIGHT - 20}
                  class="tick"
                  text-anchor="middle"
                >
                  {b.label}
                </text>
              )}
            </g>
          );
        })}
      </svg>
    </figure>
  );
}

const DAY_MS = 86_400_000;

/** One bar per UTC day over the last `days` days (days without events are zero). */
export function dailyBars(points: { day: number; count: number }[], days: number, nowMs: number): Bar[] {
  const today = Math.floor(nowMs / DAY_MS) * DAY_MS;
  const counts = new Map(points.map((p) => [p.day, p.count]));
  const bars: Bar[] = [];
  for (let d = today - (days - 1) * DAY_MS; d <= today; d += DAY_MS) {
    bars.push({ label: new Date(d).toISOString().slice(5, 10), value: counts.get(d) ?? 0 });
  }
  return bars;
}
