import { formatUtc } from '#src/platform/common/clock.js';
import type { RolloutCandidate } from '#src/domain/rollout/policy/next-rollout.js';
import type { RolloutResponse } from './dto/rollout.dto.js';

/**
 * The rollout offered to a device by `POST /api/device/next/rollout`: every value text, ids and
 * priority as decimal integers, the start date `YYYY-MM-DD HH:MM:SS` UTC.
 */
export function nextRolloutResponse(chosen: RolloutCandidate): RolloutResponse {
  return {
    rollout_id: String(chosen.id),
    rollout_name: chosen.name,
    priority: String(chosen.priority),
    start_date: formatUtc(chosen.startDate),
    version: chosen.version,
    firmware_id: String(chosen.firmwareId),
  };
}
