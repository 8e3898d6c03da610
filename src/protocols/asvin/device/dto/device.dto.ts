import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DeviceNameField, FirmwareVersionField, MacField } from '#src/platform/common/dto-fields.js';

/** A `mac` as devices may send it: any accepted notation (docs/decisions.md §6). */
export const MAC_INPUT_DESCRIPTION =
  'Hardware address, EUI-48 or EUI-64, `:`/`-`/`.`-separated or bare hex, any case (e.g. `ac-67-b2-01-02-03`); ' +
  'stored canonical: uppercase, colon-separated.';

/** Canonical mac as the server returns it: uppercase, colon-separated, EUI-48 or EUI-64. */
export const CANONICAL_MAC_PATTERN = '^[0-9A-F]{2}(:[0-9A-F]{2}){5}((:[0-9A-F]{2}){2})?$';

/** Body of `POST /api/device/register` (docs/device-interface.md). Extra fields are ignored (docs/decisions.md §1). */
export class RegisterDeviceDto {
  /** Hardware address, any accepted notation. */
  @ApiProperty({ description: MAC_INPUT_DESCRIPTION, example: 'AC:67:B2:01:02:03' })
  @MacField()
  mac: string;

  /** Version the device runs. */
  @ApiProperty({
    description: 'Firmware version the device runs: 1 to 64 printable characters.',
    minLength: 1,
    maxLength: 64,
    example: '1.0.0',
  })
  @FirmwareVersionField()
  firmware_version: string;

  /** Defaults to the mac when missing (docs/decisions.md §1). */
  @ApiPropertyOptional({
    description: 'Device name, 1 to 128 characters; defaults to the mac when missing.',
    minLength: 1,
    maxLength: 128,
    example: 'pump-7',
  })
  @DeviceNameField()
  name?: string;
}

/** Body of `DELETE /api/device/`. */
export class DeleteDeviceDto {
  @ApiProperty({ description: MAC_INPUT_DESCRIPTION, example: 'AC:67:B2:01:02:03' })
  @MacField()
  mac: string;
}

/** A device in read responses: keys in this order, `firmware-version` hyphenated (docs/device-interface.md, docs/decisions.md §6). */
export class DeviceResponse {
  @ApiProperty({
    description: 'Hardware address, canonical: uppercase, colon-separated.',
    pattern: CANONICAL_MAC_PATTERN,
    example: 'AC:67:B2:01:02:03',
  })
  mac: string;

  @ApiProperty({ description: 'Device name (the mac when registered without one).', example: 'pump-7' })
  name: string;

  @ApiProperty({
    description: 'Firmware version the device last reported (hyphenated in read responses, docs/device-interface.md).',
    example: '1.0.0',
  })
  'firmware-version': string;
}

/** Response schema of one device for fastify's serializer: the keys of {@link DeviceResponse} in order. */
export const DEVICE_RESPONSE_SCHEMA = {
  type: 'object',
  properties: { mac: { type: 'string' }, name: { type: 'string' }, 'firmware-version': { type: 'string' } },
} as const;
