import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsString } from 'class-validator';
import { OptionalField } from '#src/platform/common/dto-fields.js';
import { PageOf } from './paging.dto.js';

/** 400 text of a `ddi_gateway` that is not a boolean. */
export const INVALID_DDI_GATEWAY = 'ddi_gateway must be true or false';

/** What a `ddi_gateway` key may do (docs/decisions.md §12), as the API documents it. */
const DDI_GATEWAY_DESCRIPTION =
  'the key is a hawkBit DDI gateway token: `Authorization: GatewayToken <key>` speaks for every DDI device of the tenant and ' +
  'registers a new controller id on its first poll (never for an asvin or a Mender device). Give it only to a gateway that ' +
  'polls for many devices; a key without it is refused as a gateway token (docs/decisions.md §12).';

/** Body of `POST /tenants/:tenant/device-keys`. */
export class CreateDeviceKeyDto {
  @ApiProperty({
    description: 'device type (`dType`) of the devices that will log in with the key: 1 to 64 printable characters',
    example: 'ESP32',
    minLength: 1,
    maxLength: 64,
  })
  @IsString({ message: 'device_type must be a string' })
  device_type: string;

  /** The key belongs to one device: each `(device key, timestamp)` logs in once (docs/decisions.md §4). */
  @ApiPropertyOptional({
    description:
      'the key belongs to one device: a login (device key, timestamp) is accepted once, a byte-identical second one is ' +
      'refused as a replay. Without it the key may be shared by many devices, which may send byte-identical logins ' +
      '(docs/decisions.md §4).',
    example: false,
    default: false,
  })
  @OptionalField()
  @IsBoolean({ message: 'single_device must be true or false' })
  single_device: boolean = false;

  /** Mender devices new to the tenant that authenticate with the key are accepted at once (docs/decisions.md §13). */
  @ApiPropertyOptional({
    description:
      'Mender devices new to the tenant that authenticate with this key (as their tenant token) are accepted at once, instead of ' +
      'waiting, pending, for an operator (docs/decisions.md §13)',
    example: false,
    default: false,
  })
  @OptionalField()
  @IsBoolean({ message: 'auto_accept must be true or false' })
  auto_accept: boolean = false;

  /** The key is a hawkBit DDI gateway token for the tenant's DDI devices (docs/decisions.md §12). */
  @ApiPropertyOptional({ description: DDI_GATEWAY_DESCRIPTION, example: false, default: false })
  @OptionalField()
  @IsBoolean({ message: INVALID_DDI_GATEWAY })
  ddi_gateway: boolean = false;
}

/** Body of `PUT /tenants/:tenant/device-keys/:id/ddi-gateway` (docs/decisions.md §12). */
export class DdiGatewayDto {
  @ApiProperty({ description: DDI_GATEWAY_DESCRIPTION, example: true })
  @IsBoolean({ message: INVALID_DDI_GATEWAY })
  ddi_gateway: boolean;
}

/** A device key (docs/decisions.md §5): shared by devices of one type; revocable. */
export class DeviceKeyResponse {
  @ApiProperty({ description: 'device key id', example: 3 })
  id: number;

  @ApiProperty({
    description: 'the `device_key` devices send at login: 22 letters and digits (about 131 random bits) for new keys',
    example: 'q7Rk2ZpL9xWc4mTb8nYf3D',
  })
  key: string;

  @ApiProperty({ description: 'device type (`dType`) of devices registered with the key', example: 'ESP32' })
  device_type: string;

  @ApiProperty({ description: 'the key belongs to one device: each (device key, timestamp) logs in once', example: false })
  single_device: boolean;

  @ApiProperty({ description: 'Mender devices new to the tenant that authenticate with it are accepted at once', example: false })
  auto_accept: boolean;

  @ApiProperty({
    description: 'the key is a hawkBit DDI gateway token for every DDI device of the tenant (docs/decisions.md §12)',
    example: false,
  })
  ddi_gateway: boolean;

  @ApiProperty({ description: 'revoked keys log no device in, and their device tokens are refused', example: false })
  revoked: boolean;

  @ApiProperty({ description: 'creation time, ISO 8601 UTC', example: '2026-11-21T10:00:00.000Z' })
  created_at: string;
}

/** One page of device keys. */
export class DeviceKeyPage extends PageOf(DeviceKeyResponse, {
  description: 'device keys by id, revoked ones included',
  example: [
    {
      id: 3,
      key: 'q7Rk2ZpL9xWc4mTb8nYf3D',
      device_type: 'ESP32',
      single_device: false,
      auto_accept: false,
      ddi_gateway: false,
      revoked: false,
      created_at: '2026-11-21T10:00:00.000Z',
    },
  ],
}) {}
