import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDefined, IsString } from 'class-validator';
import { CANONICAL_MAC_PATTERN } from '#src/protocols/asvin/device/dto/device.dto.js';

/** Device record of the ledger lookup, `GET {bc_url}/device/:id` and `POST {bc_url}/device/get`. */
export class ChainDeviceRecord {
  @ApiProperty({
    description: 'Hardware address, canonical: uppercase, colon-separated.',
    pattern: CANONICAL_MAC_PATTERN,
    example: 'AC:67:B2:01:02:03',
  })
  mac: string;

  /** Id of the tenant's published firmware matching the device's version and type, else `""`. */
  @ApiProperty({
    description:
      'Id (decimal integer text) of the tenant’s published firmware whose version equals the device’s firmware version ' +
      'and whose device type matches; `""` when there is none.',
    pattern: '^(\\d+)?$',
    example: '1',
  })
  fwId: string;

  /** Device type of the key that registered the device. */
  @ApiProperty({ description: 'Device type of the device key that registered the device.', example: 'ESP32' })
  dType: string;
}

/** Firmware record of the ledger lookup, `GET {bc_url}/firmware/:id` and `POST {bc_url}/firmware/get`. */
export class ChainFirmwareRecord {
  /** Lowercase hex MD5 of the binary. */
  @ApiProperty({
    description: 'MD5 of the firmware binary, lowercase hex.',
    pattern: '^[0-9a-f]{32}$',
    example: '6f5902ac237024bdd0c176cb93063dc4',
  })
  md: string;

  /** CIDv0 of the binary. */
  @ApiProperty({
    description:
      'CIDv0 that `ipfs add` with its defaults gives the binary; download it from the IPFS component ' +
      '(`POST {ipfs_url}/firmware/download`, `GET {ipfs_url}/firmware/{cid}`, `GET {ipfs_url}/ipfs/{cid}`) or any IPFS gateway.',
    pattern: '^Qm[1-9A-HJ-NP-Za-km-z]{44}$',
    example: 'QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o',
  })
  cid: string;

  @ApiProperty({ description: 'Firmware version.', example: '1.1.0' })
  version: string;
}

/**
 * Body of the lookups as POST (`POST {bc_url}/device/get`, `POST {bc_url}/firmware/get`), as the
 * field SDKs send it: `{"id": "<mac or firmware id>"}`. A JSON integer is taken as its decimal
 * text (one past any id then names nothing: 404); extra fields are ignored.
 */
export class LedgerLookupDto {
  @ApiProperty({
    description: 'The id the GET route takes in its path: a hardware address (device) or a firmware id, decimal integer text (firmware).',
    example: '1',
  })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'number' && Number.isInteger(value) ? String(value) : value))
  @IsDefined({ message: 'id is required' })
  @IsString({ message: 'id must be a string' })
  id: string;
}
