import { defineWriteJob } from '#src/platform/database/write-job.js';

/** A device's newest last-seen time not yet written. */
export interface SeenAt {
  /** Device id. */
  id: number;
  /** Epoch milliseconds. */
  at: number;
}

/**
 * Writes last-seen times, one statement for the whole slice (the times as one JSON parameter); a
 * time never moves a device's last-seen time backwards, an absent device is skipped.
 */
export const touchDevices = defineWriteJob<SeenAt>(import.meta.url, 'touchDevices', async (sql, seen) => {
  const times = JSON.stringify(seen.map(({ id, at }) => ({ id, at })));
  await sql(
    sql.engine === 'postgres'
      ? `UPDATE device AS d SET last_seen_at = u.at FROM jsonb_to_recordset($1::jsonb) AS u(id integer, at bigint)
          WHERE d.id = u.id AND (d.last_seen_at IS NULL OR d.last_seen_at < u.at)`
      : `UPDATE device SET last_seen_at = u.at
           FROM (SELECT json_extract(value, '$.id') AS id, json_extract(value, '$.at') AS at FROM json_each($1)) AS u
          WHERE device.id = u.id AND (device.last_seen_at IS NULL OR device.last_seen_at < u.at)`,
    [times],
  );
});
