import { defineWriteJob } from '#src/platform/database/write-job.js';

/** A next-rollout answer that named a rollout to a device, not yet written. */
export interface Offer {
  rolloutId: number;
  deviceId: number;
  /** Wave the device joins when it has no state yet (the last: it became a target after the start). */
  lastWave: number;
  /** Epoch milliseconds. */
  at: number;
}

/** Devices per statement. */
const CHUNK = 200;

/**
 * Writes offers (docs/decisions.md §10): per rollout, devices without a state get `pending` in the
 * last wave (with their history entry), then those `pending` move to `offered` at the latest
 * offer's time (offers are held at most half a second), with their history entries and one more
 * attempt. Devices in any other state are left as they are. A few statements per chunk of devices.
 */
export const writeOffers = defineWriteJob<Offer>(import.meta.url, 'writeOffers', async (sql, offers) => {
  const byRollout = new Map<number, Offer[]>();
  for (const offer of offers) {
    const group = byRollout.get(offer.rolloutId);
    if (group) group.push(offer);
    else byRollout.set(offer.rolloutId, [offer]);
  }
  for (const [rolloutId, group] of byRollout) {
    const at = group.reduce((latest, offer) => Math.max(latest, offer.at), 0);
    const lastWave = group[0].lastWave;
    for (let i = 0; i < group.length; i += CHUNK) {
      const ids = group.slice(i, i + CHUNK).map((offer) => offer.deviceId);
      const values = ids.map((_, n) => `($1, $${n + 4}, $2, 'pending', 0, $3)`).join(', ');
      const added = await sql(
        `INSERT INTO rollout_device_state (rollout_id, device_id, wave, state, attempts, updated_at) VALUES ${values}
         ON CONFLICT (rollout_id, device_id) DO NOTHING RETURNING device_id`,
        [rolloutId, lastWave, at, ...ids],
      );
      const list = ids.map((_, n) => `$${n + 3}`).join(', ');
      const offered = await sql(
        `UPDATE rollout_device_state SET state = 'offered', offered_at = $2, updated_at = $2, attempts = attempts + 1
          WHERE rollout_id = $1 AND state = 'pending' AND device_id IN (${list}) RETURNING device_id`,
        [rolloutId, at, ...ids],
      );
      const transitions = [
        ...added.map((row) => [Number(row['device_id']), 'pending'] as const),
        ...offered.map((row) => [Number(row['device_id']), 'offered'] as const),
      ];
      if (transitions.length === 0) continue;
      await sql(
        `INSERT INTO rollout_device_transition (rollout_id, device_id, state, at, message) VALUES
         ${transitions.map((_, n) => `($1, $${2 * n + 3}, $${2 * n + 4}, $2, NULL)`).join(', ')}`,
        [rolloutId, at, ...transitions.flat()],
      );
    }
  }
});
