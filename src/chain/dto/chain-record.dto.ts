import { ApiProperty } from '@nestjs/swagger';
import { CANONICAL_MAC_PATTERN } from '#src/device/dto/device.dto.js';

/** `GET {bc_url}/device/:id` answer (INTERFACE.md "Blockchain device record", CONTRACT.md §7). */
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

/** `GET {bc_url}/firmware/:id` answer (INTERFACE.md "Blockchain firmware record"). */
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
    description: 'CIDv0 that `ipfs add` with its defaults gives the binary; download it at `GET {vc_url}/ipfs/{cid}` or any IPFS gateway.',
    pattern: '^Qm[1-9A-HJ-NP-Za-km-z]{44}$',
    example: 'QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o',
  })
  cid: string;

  @ApiProperty({ description: 'Firmware version.', example: '1.1.0' })
  version: string;
}
