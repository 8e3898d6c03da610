import { Controller, Get, Header, Param, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { DeviceTokenGuard } from '#src/protocols/asvin/auth/device-token.guard.js';
import { Principal, type DevicePrincipal } from '#src/protocols/asvin/auth/device-principal.js';
import { ApiMessageResponse, ApiServerError } from '#src/platform/openapi/api-responses.js';
import { ApiDeviceAuth } from '#src/protocols/asvin/auth/api-device-auth.js';
import { TUF_METADATA_NOT_FOUND, TufService } from '#src/domain/tuf/tuf.service.js';

/**
 * The TUF repository of the device's tenant and device type (both from its token) on the IPFS
 * component: `GET {ipfs_url}/tuf/<n>.root.json`, `timestamp.json`, `snapshot.json`,
 * `targets.json`. Targets are firmware binaries named by CID, downloaded from
 * `{ipfs_url}/ipfs/<cid>` (the TUF client's target base URL is `{ipfs_url}/ipfs`).
 */
@ApiTags('Signed update metadata (TUF)')
@ApiDeviceAuth()
@ApiServerError()
@Controller('tuf')
@UseGuards(DeviceTokenGuard)
export class TufController {
  constructor(private readonly tuf: TufService) {}

  /** `GET /tuf/:file` → 200 the metadata file (JSON); 404 `TUF metadata not found`. */
  @Get(':file')
  @Header('Content-Type', 'application/json; charset=utf-8')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'A TUF metadata file of the firmware of the device’s tenant and device type',
    description:
      'root (`<n>.root.json`, every version), `timestamp.json`, `snapshot.json`, `targets.json`: signed with Ed25519 keys kept in ' +
      'the data directory, each with an expiry and a version that only grows. Point a TUF client (e.g. tuf-js) at `{ipfs_url}/tuf` ' +
      'for metadata and `{ipfs_url}/ipfs` for targets, sending the device token.',
  })
  @ApiParam({ name: 'file', description: 'metadata file name', example: 'timestamp.json' })
  @ApiOkResponse({ description: 'The signed metadata (TUF JSON).', content: { 'application/json': { schema: { type: 'object' } } } })
  @ApiMessageResponse(404, 'No such metadata file (or root version).', TUF_METADATA_NOT_FOUND)
  file(@Principal() principal: DevicePrincipal, @Param('file') file: string): Promise<string> {
    return this.tuf.file(principal.tenantId, principal.deviceType, file);
  }
}
