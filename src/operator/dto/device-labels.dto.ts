import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsString } from 'class-validator';
import { OptionalField } from '#src/platform/common/dto-fields.js';

const LABEL_TEXT =
  '`key=value` or a plain word `key`: key and value 1 to 64 characters of letters, digits and `._:/-` (docs/decisions.md §10.3)';

/** Body of `PUT /tenants/:tenant/devices/:mac/labels`: the device's labels, replacing the ones it has. */
export class DeviceLabelsDto {
  @ApiProperty({ description: `the labels, at most 20: ${LABEL_TEXT}`, example: ['site=lab', 'beta'], type: [String], maxItems: 20 })
  @IsString({ each: true, message: 'labels must be an array of strings' })
  @IsArray({ message: 'labels must be an array of strings' })
  labels: string[];
}

/** Body of `POST /tenants/:tenant/devices/labels`: labels to add to and keys to remove from devices. */
export class DeviceLabelsChangeDto {
  @ApiProperty({
    description: 'device identifiers (hardware addresses in any notation, or controller ids); at least one, at most 1000',
    example: ['AC:67:B2:01:02:03', 'ctrl-7'],
    type: [String],
    minItems: 1,
    maxItems: 1000,
  })
  @ArrayMaxSize(1000, { message: 'devices must name at most 1000 devices' })
  @ArrayMinSize(1, { message: 'devices must name at least one device' })
  @IsString({ each: true, message: 'devices must be an array of strings' })
  @IsArray({ message: 'devices must be an array of strings' })
  devices: string[];

  @ApiPropertyOptional({
    description: `labels to add (a key a device has takes the new value): ${LABEL_TEXT}`,
    example: ['site=lab'],
    type: [String],
  })
  @OptionalField()
  @IsString({ each: true, message: 'add must be an array of strings' })
  @IsArray({ message: 'add must be an array of strings' })
  add?: string[];

  @ApiPropertyOptional({ description: 'label keys to remove', example: ['beta'], type: [String] })
  @OptionalField()
  @IsString({ each: true, message: 'remove must be an array of strings' })
  @IsArray({ message: 'remove must be an array of strings' })
  remove?: string[];
}

/** A device's labels. */
export class DeviceLabelsResponse {
  @ApiProperty({ description: 'the device identifier (canonical)', example: 'AC:67:B2:01:02:03' })
  mac: string;

  @ApiProperty({ description: 'its labels by key: `key=value` or a plain word', example: ['beta', 'site=lab'], type: [String] })
  labels: string[];
}
