import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiServerError } from '#src/platform/openapi/api-responses.js';
import { FingerprintsResponse } from '#src/protocols/asvin/tools/dto/fingerprints.dto.js';
import { ToolsService } from './tools.service.js';

/** The tools service, mounted at `TOOLS_URL`. No token: devices call it before they log in. */
@ApiTags('Tools')
@ApiServerError()
@Controller()
export class ToolsController {
  constructor(private readonly tools: ToolsService) {}

  /** `GET /fingerprints` → `{oauth, vc, bc, ipfs}`: SHA-1 fingerprints of the components' certificates. */
  @Get('fingerprints')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'TLS certificate fingerprints of the device-facing components',
    description:
      'What the ESP8266 SDK pins before it connects to the other components: the SHA-1 fingerprint of the certificate each ' +
      'base URL presents (the one its listener serves, or the one an operator named for the TLS proxy in front of it). ' +
      'Computed at start. No token.',
  })
  @ApiOkResponse({ description: 'The fingerprints, in the keys the ESP8266 SDK reads.', type: FingerprintsResponse })
  fingerprints(): FingerprintsResponse {
    return this.tools.current();
  }
}
