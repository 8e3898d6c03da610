import { Controller, Get, Headers, Param, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import parseRange from 'range-parser';
import { DeviceTokenGuard } from '#src/auth/device-token.guard.js';
import { Principal, type DevicePrincipal } from '#src/auth/device-principal.js';
import { ArtifactStore } from './artifact-store.js';
import { FirmwareService } from './firmware.service.js';

/**
 * Firmware download in the IPFS gateway path form, `GET {vc_url}/ipfs/{cid}`, so a device can
 * switch to any IPFS gateway. JWT required; the tenant's own firmware only.
 */
@Controller('ipfs')
@UseGuards(DeviceTokenGuard)
export class FirmwareController {
  constructor(
    private readonly firmware: FirmwareService,
    private readonly artifacts: ArtifactStore,
  ) {}

  /**
   * Streams the binary with `Content-Length`, `ETag` (the CID) and `Accept-Ranges: bytes`.
   * A single `Range` is answered 206 with `Content-Range` (so interrupted downloads resume),
   * an unsatisfiable one 416; `If-Range` with another tag and multi-ranges get the whole body;
   * `If-None-Match` with the tag answers 304. 404 `Firmware not found`.
   */
  @Get(':cid')
  async download(
    @Principal() principal: DevicePrincipal,
    @Param('cid') cid: string,
    @Headers('range') range: string | undefined,
    @Headers('if-range') ifRange: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const artifact = await this.firmware.requireArtifact(principal.tenantId, cid);
    const etag = `"${artifact.cid}"`;
    void reply
      .header('ETag', etag)
      .header('Accept-Ranges', 'bytes')
      .header('Cache-Control', 'private, max-age=31536000, immutable')
      .type('application/octet-stream');
    if (ifNoneMatch && ifNoneMatch.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')) {
      await reply.status(304).send();
      return;
    }
    const ranges = range && (!ifRange || ifRange.trim() === etag) ? parseRange(artifact.size, range, { combine: true }) : undefined;
    if (ranges === -1) {
      await reply
        .status(416)
        .header('Content-Range', `bytes */${artifact.size}`)
        .type('application/json')
        .send({ message: 'Range Not Satisfiable' });
      return;
    }
    if (Array.isArray(ranges) && ranges.type === 'bytes' && ranges.length === 1) {
      const { start, end } = ranges[0];
      await reply
        .status(206)
        .header('Content-Range', `bytes ${start}-${end}/${artifact.size}`)
        .header('Content-Length', end - start + 1)
        .send(this.artifacts.open(artifact.cid, { start, end }));
      return;
    }
    await reply.status(200).header('Content-Length', artifact.size).send(this.artifacts.open(artifact.cid));
  }
}
