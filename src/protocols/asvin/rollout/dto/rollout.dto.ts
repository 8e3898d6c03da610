import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { FirmwareVersionField, MacField } from '#src/platform/common/dto-fields.js';
import { canonicalMac } from '#src/platform/common/mac.js';
import { printableAscii, registerBodyShortcut } from '#src/platform/http/validation.pipe.js';
import { MAC_INPUT_DESCRIPTION } from '#src/protocols/asvin/device/dto/device.dto.js';

/** Decimal integer text, as ids are sent (docs/decisions.md §7). */
const DECIMAL_ID = '^\\d+$';

/** Body of `POST /api/device/next/rollout` (docs/device-interface.md). */
export class NextRolloutDto {
  @ApiProperty({ description: MAC_INPUT_DESCRIPTION, example: 'AC:67:B2:01:02:03' })
  @MacField()
  mac: string;

  /** What the device runs now; becomes its `firmware-version` (docs/decisions.md §6). */
  @ApiProperty({
    description: 'Firmware version the device runs now (1 to 64 printable characters); becomes its `firmware-version`.',
    minLength: 1,
    maxLength: 64,
    example: '1.0.0',
  })
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

/** Body of `POST /api/device/success/rollout` (docs/device-interface.md). */
export class RolloutSuccessDto {
  @ApiProperty({ description: MAC_INPUT_DESCRIPTION, example: 'AC:67:B2:01:02:03' })
  @MacField()
  mac: string;

  /** What the device runs after the update. */
  @ApiProperty({
    description: 'Firmware version the device runs after the update (1 to 64 printable characters).',
    minLength: 1,
    maxLength: 64,
    example: '1.1.0',
  })
  @FirmwareVersionField()
  firmware_version: string;

  /** Decimal id text as sent in the next-rollout answer; a JSON number is accepted too. */
  @ApiProperty({
    description: '`rollout_id` from the next-rollout answer: decimal id text (a JSON integer is accepted too).',
    minLength: 1,
    maxLength: 20,
    pattern: DECIMAL_ID,
    example: '1',
  })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'number' && Number.isInteger(value) ? String(value) : value))
  @IsString({ message: 'rollout_id must be a string' })
  @Length(1, 20, { message: 'rollout_id must be 1 to 20 characters' })
  rollout_id: string;
}

/** Longest failure message a device may send, characters. */
export const MAX_FAILURE_MESSAGE = 500;

/**
 * Body of `POST /api/device/failure/rollout`: a device reports that a rollout failed on it (beyond
 * the documented device interface and optional for devices; docs/decisions.md §10).
 */
export class RolloutFailureDto extends RolloutSuccessDto {
  /** What went wrong, in the device's words. */
  @ApiPropertyOptional({
    description: `What went wrong, in the device's words: up to ${MAX_FAILURE_MESSAGE} characters.`,
    maxLength: MAX_FAILURE_MESSAGE,
    example: 'image verification failed',
  })
  @IsOptional()
  @IsString({ message: 'message must be a string' })
  @MaxLength(MAX_FAILURE_MESSAGE, { message: `message must be at most ${MAX_FAILURE_MESSAGE} characters` })
  message?: string;
}

/**
 * The next-rollout answer (docs/device-interface.md "Rollout"): every value a JSON string, keys in this
 * order; `{}` when there is none (docs/decisions.md §1, §6).
 */
export class RolloutResponse {
  @ApiProperty({ description: 'Id of the rollout: decimal integer text.', pattern: DECIMAL_ID, example: '1' })
  rollout_id: string;

  @ApiProperty({ description: 'Name of the rollout.', example: '1.1.0 to field test' })
  rollout_name: string;

  /** Numeric text, 1 is most urgent. */
  @ApiProperty({ description: 'Numeric text; 1 is most urgent.', pattern: DECIMAL_ID, example: '1' })
  priority: string;

  /** `YYYY-MM-DD HH:MM:SS`, UTC. */
  @ApiProperty({
    description: 'Start date, UTC, format `YYYY-MM-DD HH:MM:SS` (docs/device-interface.md; not RFC 3339).',
    pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$',
    example: '2026-01-01 00:00:00',
  })
  start_date: string;

  /** Target firmware version. */
  @ApiProperty({ description: 'Target firmware version.', example: '1.1.0' })
  version: string;

  @ApiProperty({
    description: 'Id of the firmware: decimal integer text; look it up at `GET {bc_url}/firmware/{id}`.',
    pattern: DECIMAL_ID,
    example: '1',
  })
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
