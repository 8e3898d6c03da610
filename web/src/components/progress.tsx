import { count, percent } from '#web/format';

/** One part of a progress bar: devices in one state. */
export interface Segment {
  /** Stable key, also the CSS modifier of its colour (`seg-confirmed`). */
  key: string;
  label: string;
  count: number;
}

/**
 * A bar of `total` devices split into coloured segments (the rest stays empty), with a legend
 * that names every segment with its number and share. Screen readers get a progress bar whose
 * value is `done` (by default the first segment) and a sentence naming every segment that has
 * devices.
 * @param legendSegments the legend's items and their order (default: the bar's).
 */
export function SegmentedBar({
  segments,
  legendSegments = segments,
  total,
  label,
  done = segments[0]?.count ?? 0,
  doneLabel = segments[0]?.label ?? 'done',
  legend = true,
}: {
  segments: Segment[];
  legendSegments?: Segment[];
  total: number;
  label: string;
  done?: number;
  doneLabel?: string;
  legend?: boolean;
}) {
  const parts = legendSegments.filter((s) => s.count > 0 && s.label !== doneLabel).map((s) => `${count(s.count)} ${s.label}`);
  const text = `${count(done)} of ${count(total)} ${doneLabel}${parts.length ? `; ${parts.join(', ')}` : ''}`;
  return (
    <div className="progress">
      <div
        className="bar"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={Math.max(total, 1)}
        aria-valuenow={done}
        aria-valuetext={text}
      >
        {segments.map((s) =>
          s.count > 0 ? (
            <span
              key={s.key}
              className={`seg seg-${s.key}`}
              title={`${s.label}: ${count(s.count)} (${percent(s.count, total)})`}
              style={{ width: `${(100 * s.count) / Math.max(total, 1)}%` }}
            />
          ) : null,
        )}
      </div>
      {legend ? (
        <ul className="legend" aria-label={`${label}, per state`}>
          {legendSegments.map((s) => (
            <li key={s.key} className={s.count === 0 ? 'legend-zero' : undefined}>
              <span className={`swatch seg-${s.key}`} aria-hidden="true" />
              {s.label} <strong>{count(s.count)}</strong> <span className="muted">({percent(s.count, total)})</span>
            </li>
          ))}
          <li>
            targeted <strong>{count(total)}</strong>
          </li>
        </ul>
      ) : null}
    </div>
  );
}
