import { Controller, Get, Headers, Param, Res, UseGuards } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiParam, ApiResponse, ApiTags, type HeadersObject } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import parseRange from 'range-parser';
import { DeviceTokenGuard } from '#src/auth/device-token.guard.js';
import { Principal, type DevicePrincipal } from '#src/auth/device-principal.js';
import { ApiDeviceAuth, ApiMessageResponse, ApiServerError } from '#src/openapi/api-responses.js';
import { ArtifactStore } from './artifact-store.js';
import { FIRMWARE_NOT_FOUND, FirmwareService } from './firmware.service.js';

/** 416 text (a range outside the binary). */
const RANGE_NOT_SATISFIABLE = 'Range Not Satisfiable';

const EXAMPLE_CID = 'QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o';

/** Headers of every answer carrying the binary (200, 206). */
const BINARY_HEADERS: HeadersObject = {
  'Content-Length': { description: 'Bytes in this body.', schema: { type: 'integer', example: 700000 } },
  ETag: { description: 'The CID, quoted.', schema: { type: 'string', example: `"${EXAMPLE_CID}"` } },
  'Accept-Ranges': { description: 'Range requests are supported.', schema: { type: 'string', example: 'bytes' } },
  'Cache-Control': {
    description: 'A CID names immutable bytes.',
    schema: { type: 'string', example: 'private, max-age=31536000, immutable' },
  },
};

/** The binary body of 200 and 206. */
const BINARY_CONTENT = { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } };

/**
 * Firmware download in the IPFS gateway path form, `GET {vc_url}/ipfs/{cid}`, so a device can
 * switch to any IPFS gateway. JWT required; the tenant's own firmware only.
 */
@ApiTags('Firmware')
@ApiDeviceAuth()
@ApiServerError()
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
  @ApiOperation({
    summary: 'Download a firmware binary by its CID',
    description:
      'The IPFS gateway path form, so a device can switch to any IPFS gateway; the tenant’s own firmware only. A single ' +
      '`Range` is answered 206 so interrupted downloads resume; `If-Range` with another tag and multi-range requests get ' +
      'the whole body; `If-None-Match` with the tag answers 304.',
  })
  @ApiParam({ name: 'cid', description: 'CIDv0 of the binary (`cid` of the ledger’s firmware record).', example: EXAMPLE_CID })
  @ApiHeader({ name: 'Range', required: false, description: 'One byte range (RFC 9110).', example: 'bytes=262144-' })
  @ApiHeader({ name: 'If-Range', required: false, description: 'Honour `Range` only while the ETag matches.', example: `"${EXAMPLE_CID}"` })
  @ApiHeader({ name: 'If-None-Match', required: false, description: 'Answer 304 when the ETag matches.', example: `"${EXAMPLE_CID}"` })
  @ApiResponse({ status: 200, description: 'The whole binary.', headers: BINARY_HEADERS, content: BINARY_CONTENT })
  @ApiResponse({
    status: 206,
    description: 'The requested range of the binary.',
    headers: {
      ...BINARY_HEADERS,
      'Content-Range': {
        description: 'The range sent, and the full size.',
        schema: { type: 'string', example: 'bytes 262144-699999/700000' },
      },
    },
    content: BINARY_CONTENT,
  })
  @ApiResponse({ status: 304, description: '`If-None-Match` matched the ETag: no body.', headers: { ETag: BINARY_HEADERS.ETag } })
  @ApiMessageResponse(404, 'No such firmware in the tenant.', FIRMWARE_NOT_FOUND)
  @ApiMessageResponse(416, 'The range lies outside the binary.', RANGE_NOT_SATISFIABLE, {
    'Content-Range': { description: 'The full size.', schema: { type: 'string', example: 'bytes */700000' } },
  })
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
        .send({ message: RANGE_NOT_SATISFIABLE });
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
