import { ApiProperty } from '@nestjs/swagger';

const FINGERPRINT = {
  pattern: '^([0-9A-F]{2}(:[0-9A-F]{2}){19})?$',
  example: '8D:FD:59:E0:B6:E5:24:81:20:EF:A3:F7:42:5A:7E:A6:63:FF:AC:12',
} as const;

const describe = (component: string): string =>
  `SHA-1 fingerprint of the certificate the ${component} URL presents: uppercase hex pairs separated by colons, ` +
  'the form the ESP8266 SDK pins; `""` when the component has no certificate.';

/**
 * `GET {tools_url}/fingerprints`: the SHA-1 fingerprint of each device-facing component's TLS
 * certificate, keyed as the ESP8266 SDK reads them (`oauth` is the authentication component).
 */
export class FingerprintsResponse {
  @ApiProperty({ description: describe('authentication component’s (AUTH_URL)'), ...FINGERPRINT })
  oauth: string;

  @ApiProperty({ description: describe('version controller’s (VC_URL)'), ...FINGERPRINT })
  vc: string;

  @ApiProperty({ description: describe('blockchain lookup’s (BC_URL)'), ...FINGERPRINT })
  bc: string;

  @ApiProperty({ description: describe('IPFS download server’s (IPFS_URL)'), ...FINGERPRINT })
  ipfs: string;
}
