import { Transform } from 'class-transformer';
import { IsString, Length } from 'class-validator';
import { FirmwareVersionField, MacField } from '#src/common/dto-fields.js';
import { canonicalMac } from '#src/common/mac.js';
import { printableAscii, registerBodyShortcut } from '#src/common/validation.pipe.js';

/** Body of `POST /api/device/next/rollout` (INTERFACE.md). */
export class NextRolloutDto {
  @MacField()
  mac: string;

  /** What the device runs now; becomes its `firmware-version` (CONTRACT.md §6). */
  @FirmwareVersionField()
  firmware_version: string;
}

// What devices send on every check: a mac in any notation and a printable ASCII version.
registerBodyShortcut(NextRolloutDto, (body) => {
  const mac = typeof body['mac'] === 'string' ? canonicalMac(body['mac']) : null;
  const version = body['firmware_version'];
  if (mac === null || !printableAscii(version, 1, 64)) return undefined;
  return Object.assign(new NextRolloutDto(), { mac, firmware_version: version });
});

/** Body of `POST /api/device/success/rollout` (INTERFACE.md). */
export class RolloutSuccessDto {
  @MacField()
  mac: string;

  /** What the device runs after the update. */
  @FirmwareVersionField()
  firmware_version: string;

  /** Decimal id text as sent in the next-rollout answer; a JSON number is accepted too. */
  @Transform(({ value }: { value: unknown }) => (typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value))
  @IsString({ message: 'rollout_id must be a string' })
  @Length(1, 20, { message: 'rollout_id must be 1 to 20 characters' })
  rollout_id: string;
}

/**
 * The next-rollout answer (INTERFACE.md "Rollout"): every value a JSON string, keys in this
 * order; `{}` when there is none (CONTRACT.md §1, §6).
 */
export interface RolloutResponse {
  rollout_id: string;
  rollout_name: string;
  /** Numeric text, 1 is most urgent. */
  priority: string;
  /** `YYYY-MM-DD HH:MM:SS`, UTC. */
  start_date: string;
  /** Target firmware version. */
  version: string;
  firmware_id: string;
}

/**
 * Response schema of next rollout for fastify's serializer: the keys of {@link RolloutResponse} in
 * the documented order, all strings, none required (`{}` when there is no rollout).
 */
export const ROLLOUT_RESPONSE_SCHEMA = {
  type: 'object',
  properties: {
    rollout_id: { type: 'string' },
    rollout_name: { type: 'string' },
    priority: { type: 'string' },
    start_date: { type: 'string' },
    version: { type: 'string' },
    firmware_id: { type: 'string' },
  },
} as const;
