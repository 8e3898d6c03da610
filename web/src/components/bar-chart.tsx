import { count, percent } from '#web/format';

/**
 * Horizontal bars, one per row, longest first as given; each row says its label, its count and
 * its share in words, so the chart reads without seeing it.
 */
export function BarChart({ caption, rows, total }: { caption: string; rows: { label: string; value: number }[]; total: number }) {
  const max = Math.max(1, ...rows.map((row) => row.value));
  return (
    <figure className="chart">
      <figcaption>{caption}</figcaption>
      <ul>
        {rows.map((row) => (
          <li key={row.label}>
            <span className="chart-label">{row.label}</span>
            <span className="chart-track" aria-hidden="true">
              <span className="chart-bar" style={{ width: `${(100 * row.value) / max}%` }} />
            </span>
            <span className="chart-value">
              {count(row.value)} <span className="muted">({percent(row.value, total)})</span>
            </span>
          </li>
        ))}
      </ul>
    </figure>
  );
}
