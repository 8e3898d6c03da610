import { formatUtc } from '#src/common/clock.js';
import type { RolloutResponse } from '#src/rollout/dto/rollout.dto.js';
import type { RolloutCandidate } from '#src/rollout/next-rollout.js';
import type { DeviceResponse } from './dto/device.dto.js';
import type { Device } from './device.entity.js';

/*
 * Every answer shape of the device API (`/api/device/…`, `/api/report/…`) built from entities,
 * one function per shape, in the field names and order devices read (docs/device-interface.md).
 * Messages such as `Successfully inserted!` are the services' constants, not shapes.
 */

/** A device in read answers and reports: `mac`, `name`, `firmware-version` (hyphenated), in that order. */
export function deviceResponse(device: Pick<Device, 'mac' | 'name' | 'firmwareVersion'>): DeviceResponse {
  return { mac: device.mac, name: device.name, 'firmware-version': device.firmwareVersion };
}

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
