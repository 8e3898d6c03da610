import { count, percent } from '#web/format';

/** One part of a progress bar: devices in one state. */
export interface Segment {
  /** Stable key, also the CSS modifier of its colour (`seg-updated`). */
  key: string;
  label: string;
  count: number;
}

/**
 * A bar of `total` devices split into coloured segments (the rest stays empty), with a legend.
 * Screen readers get a progress bar whose value is the first segment (the devices done) and a
 * sentence naming every segment.
 */
export function SegmentedBar({
  segments,
  total,
  label,
  legend = true,
}: {
  segments: Segment[];
  total: number;
  label: string;
  legend?: boolean;
}) {
  const done = segments[0]?.count ?? 0;
  const text = segments.map((s) => `${count(s.count)} ${s.label}`).join(', ');
  return (
    <div className="progress">
      <div
        className="bar"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={Math.max(total, 1)}
        aria-valuenow={done}
        aria-valuetext={`${text} of ${count(total)}`}
      >
        {segments.map((s) =>
          s.count > 0 ? (
            <span key={s.key} className={`seg seg-${s.key}`} style={{ width: `${(100 * s.count) / Math.max(total, 1)}%` }} />
          ) : null,
        )}
      </div>
      {legend ? (
        <ul className="legend">
          {segments.map((s) => (
            <li key={s.key}>
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
