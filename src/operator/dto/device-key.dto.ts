import { ApiProperty } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { PageOf } from './paging.dto.js';

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
}

/** A device key (CONTRACT.md §5): shared by devices of one type; revocable. */
export class DeviceKeyResponse {
  @ApiProperty({ description: 'device key id', example: 3 })
  id: number;

  @ApiProperty({ description: 'the `device_key` devices send at login', example: '9f2c4e7a1b3d5f608192a3b4c5d6e7f8' })
  key: string;

  @ApiProperty({ description: 'device type (`dType`) of devices registered with the key', example: 'ESP32' })
  device_type: string;

  @ApiProperty({ description: 'revoked keys log no device in, and their device tokens are refused', example: false })
  revoked: boolean;

  @ApiProperty({ description: 'creation time, ISO 8601 UTC', example: '2026-11-21T10:00:00.000Z' })
  created_at: string;
}

/** One page of device keys. */
export class DeviceKeyPage extends PageOf(DeviceKeyResponse, {
  description: 'device keys by id, revoked ones included',
  example: [
    { id: 3, key: '9f2c4e7a1b3d5f608192a3b4c5d6e7f8', device_type: 'ESP32', revoked: false, created_at: '2026-11-21T10:00:00.000Z' },
  ],
}) {}
