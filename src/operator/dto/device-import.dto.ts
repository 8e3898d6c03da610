import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { IMPORT_FORMATS, type ImportFormat } from '#src/domain/device-import/import-rows.js';

/** The query of a bulk device import: the format, when the media type does not say it. */
export class DeviceImportQuery {
  @ApiProperty({
    required: false,
    enum: IMPORT_FORMATS,
    example: 'csv',
    description: 'the row format; by default the body’s media type decides (`text/csv`: csv, `application/x-ndjson`: ndjson)',
  })
  @IsOptional()
  @IsIn(IMPORT_FORMATS, { message: 'format must be csv or ndjson' })
  format?: ImportFormat;
}

/** What a bulk device import did (docs/decisions.md §14). */
export class DeviceImportResponse {
  @ApiProperty({ description: 'rows read', example: 3 })
  rows: number;

  @ApiProperty({ description: 'devices created', example: 2 })
  created: number;

  @ApiProperty({ description: 'rows skipped: the tenant had a device with their identifier (or an earlier row named it)', example: 1 })
  skipped: number;

  @ApiProperty({ description: 'the first 100 skipped identifiers, in the order of their rows', example: ['AC:67:B2:01:02:03'] })
  skipped_devices: string[];

  @ApiProperty({
    description: 'lowercase hex SHA-256 of the body: the `device.imported` ledger entry records it',
    example: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  })
  sha256: string;
}

/** One bad row of a refused import. */
export class DeviceImportRowError {
  @ApiProperty({ description: 'its line in the body (1-based)', example: 7 })
  line: number;

  @ApiProperty({ description: 'the field (column) that breaks its rule', example: 'mac' })
  field: string;

  @ApiProperty({
    description: 'what is wrong, naming the line and the field',
    example: 'line 7: mac "zz" is not a hardware address (EUI-48 or EUI-64, e.g. AC:67:B2:01:02:03); a controller id goes in controller_id',
  })
  message: string;
}

/** 400 of an import with bad rows: nothing was written. */
export class DeviceImportRejectedResponse {
  @ApiProperty({
    description: 'the first bad row, and how many more there are',
    example:
      'line 7: mac "zz" is not a hardware address (EUI-48 or EUI-64, e.g. AC:67:B2:01:02:03); a controller id goes in controller_id (and 1 more bad row)',
  })
  message: string;

  @ApiProperty({ description: 'the field of the first bad row', example: 'mac' })
  field: string;

  @ApiProperty({
    type: [DeviceImportRowError],
    description: 'the bad rows, at most 20 (reading stops at the 20th)',
    example: [
      {
        line: 7,
        field: 'mac',
        message:
          'line 7: mac "zz" is not a hardware address (EUI-48 or EUI-64, e.g. AC:67:B2:01:02:03); a controller id goes in controller_id',
      },
      { line: 9, field: 'device_type', message: 'line 9: device_type is required' },
    ],
  })
  errors: DeviceImportRowError[];
}
