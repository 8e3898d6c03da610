import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { FirmwareVersionField, MacField, PRINTABLE_TEXT_PATTERN, printableTextMessage } from '#src/platform/common/dto-fields.js';
import { canonicalMac, INVALID_MAC, MAC_INPUT_PATTERN } from '#src/platform/common/mac.js';
import { Type, type Static } from 'typebox';
import { bodySchema } from '#src/platform/http/body-schema.js';
import { MAC_INPUT_DESCRIPTION } from '#src/protocols/asvin/device/dto/device.dto.js';

/** Decimal integer text, as ids are sent (docs/decisions.md §7). */
const DECIMAL_ID = '^\\d+$';

/**
 * Body of `POST /api/device/next/rollout` (docs/device-interface.md), written once: Fastify
 * validates it, the OpenAPI document shows it, and the handler gets `{ mac, firmware_version }`
 * with the mac canonical and nothing else. 400 texts as for every device body (docs/decisions.md §3, §6).
 */
export const NEXT_ROLLOUT_BODY = bodySchema(
  Type.Object({
    mac: Type.String({ description: MAC_INPUT_DESCRIPTION, pattern: MAC_INPUT_PATTERN, example: 'AC:67:B2:01:02:03' }),
    firmware_version: Type.String({
      description: 'Firmware version the device runs now (1 to 64 printable characters); becomes its `firmware-version`.',
      minLength: 1,
      maxLength: 64,
      pattern: PRINTABLE_TEXT_PATTERN,
      example: '1.0.0',
    }),
  }),
  { mac: () => INVALID_MAC, firmware_version: printableTextMessage('firmware_version') },
  (body) => ({ mac: canonicalMac(body.mac)!, firmware_version: body.firmware_version }),
);

/** What the next-rollout handler takes: the mac canonical (`AC:67:B2:01:02:03`). */
export type NextRolloutBody = { mac: string; firmware_version: string };

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
 * The rollout of a next-rollout answer (docs/device-interface.md "Rollout"): every value a JSON
 * string, keys in this order (docs/decisions.md §1, §6). Named `RolloutResponse` in the OpenAPI document.
 */
export const ROLLOUT_OFFER = Type.Object({
  rollout_id: Type.String({ description: 'Id of the rollout: decimal integer text.', pattern: DECIMAL_ID, example: '1' }),
  rollout_name: Type.String({ description: 'Name of the rollout.', example: '1.1.0 to field test' }),
  priority: Type.String({ description: 'Numeric text; 1 is most urgent.', pattern: DECIMAL_ID, example: '1' }),
  start_date: Type.String({
    description: 'Start date, UTC, format `YYYY-MM-DD HH:MM:SS` (docs/device-interface.md; not RFC 3339).',
    pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$',
    example: '2026-01-01 00:00:00',
  }),
  version: Type.String({ description: 'Target firmware version.', example: '1.1.0' }),
  firmware_id: Type.String({
    description: 'Id of the firmware: decimal integer text; look it up at `GET {bc_url}/firmware/{id}`.',
    pattern: DECIMAL_ID,
    example: '1',
  }),
});

/** A rollout offered to a device by next rollout ({@link ROLLOUT_OFFER}). */
export type RolloutResponse = Static<typeof ROLLOUT_OFFER>;

/**
 * The serializer's schema of the next-rollout answer: the offer's fields, each optional, so `{}`
 * (no rollout) and an offer serialize in one pass, keys in the offer's order.
 */
export const NEXT_ROLLOUT_REPLY = Type.Partial(ROLLOUT_OFFER);
