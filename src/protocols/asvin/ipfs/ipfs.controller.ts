import { readUpdaterHeaders } from './updater-headers.js';
import { applyDecorators, Body, Controller, Get, HttpCode, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiParam, ApiResponse, ApiTags, type HeadersObject } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { DeviceTokenGuard } from '#src/protocols/asvin/auth/device-token.guard.js';
import { Principal, type DevicePrincipal } from '#src/protocols/asvin/auth/device-principal.js';
import { FIRMWARE_NOT_FOUND } from '#src/domain/firmware/firmware.service.js';
import { ApiJsonBodyErrors, ApiMessageResponse, ApiServerError } from '#src/platform/openapi/api-responses.js';
import { ApiDeviceAuth } from '#src/protocols/asvin/auth/api-device-auth.js';
import { DownloadFirmwareDto } from '#src/protocols/asvin/ipfs/dto/download.dto.js';
import { FirmwareDownloadService, RANGE_NOT_SATISFIABLE, type DownloadAnswer } from '#src/domain/delivery/firmware-download.service.js';

const EXAMPLE_CID = 'QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o';

/** Headers of every answer carrying the binary (200, 206). */
const BINARY_HEADERS: HeadersObject = {
  'Content-Length': { description: 'Bytes in this body; always sent, never a chunked body.', schema: { type: 'integer', example: 700000 } },
  'x-MD5': {
    description: 'Lowercase hex MD5 of the whole binary: the ESP updaters check the image against it before booting it.',
    schema: { type: 'string', example: '6f5902ac237024bdd0c176cb93063dc4' },
  },
  ETag: { description: 'The CID, quoted.', schema: { type: 'string', example: `"${EXAMPLE_CID}"` } },
  'Accept-Ranges': { description: 'Range requests are supported.', schema: { type: 'string', example: 'bytes' } },
  'Cache-Control': {
    description: 'A CID names immutable bytes.',
    schema: { type: 'string', example: 'private, max-age=31536000, immutable' },
  },
  Connection: { description: 'The connection closes after the body.', schema: { type: 'string', example: 'close' } },
};

/** The binary body of 200 and 206. */
const BINARY_CONTENT = { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } };

const UPDATER_HEADERS = [
  [
    'x-ESP8266-STA-MAC',
    'AC:67:B2:01:02:03',
    'Station mac the ESP8266 updater sends: the download is attributed to that device of the tenant.',
  ],
  [
    'x-ESP8266-free-space',
    '1044464',
    'Free space for the new image, bytes, as the ESP8266 updater reports it: a larger image is refused (403).',
  ],
  ['x-ESP32-STA-MAC', 'AC:67:B2:01:02:03', 'Station mac the ESP32 updater sends: the download is attributed to that device of the tenant.'],
  [
    'x-ESP32-free-space',
    '1310720',
    'Free space for the new image, bytes, as the ESP32 updater reports it: a larger image is refused (403).',
  ],
] as const;

/** The answers and request headers every download route documents. */
function ApiDownload(): MethodDecorator {
  return applyDecorators(
    ...UPDATER_HEADERS.map(([name, example, description]) => ApiHeader({ name, required: false, description, example })),
    ApiHeader({ name: 'Range', required: false, description: 'One byte range (RFC 9110).', example: 'bytes=262144-' }),
    ApiHeader({
      name: 'If-Range',
      required: false,
      description: 'Honour `Range` only while the ETag matches.',
      example: `"${EXAMPLE_CID}"`,
    }),
    ApiHeader({ name: 'If-None-Match', required: false, description: 'Answer 304 when the ETag matches.', example: `"${EXAMPLE_CID}"` }),
    ApiResponse({ status: 200, description: 'The whole binary.', headers: BINARY_HEADERS, content: BINARY_CONTENT }),
    ApiResponse({
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
    }),
    ApiResponse({ status: 304, description: '`If-None-Match` matched the ETag: no body.', headers: { ETag: BINARY_HEADERS.ETag } }),
    ApiMessageResponse(
      403,
      'The image is larger than the free space the updater reported; nothing is sent. Both ESP updaters report this status by name.',
      'Firmware is 1048576 bytes; the device has 1044464 bytes free for it (x-ESP8266-free-space)',
    ),
    ApiMessageResponse(404, 'No such firmware in the tenant (also another tenant’s CID).', FIRMWARE_NOT_FOUND),
    ApiMessageResponse(416, 'The range lies outside the binary.', RANGE_NOT_SATISFIABLE, {
      'Content-Range': { description: 'The full size.', schema: { type: 'string', example: 'bytes */700000' } },
    }),
  );
}

const CID_PARAM = { name: 'cid', description: 'CIDv0 of the binary (`cid` of the ledger’s firmware record).', example: EXAMPLE_CID };

/**
 * The IPFS download server, mounted at `IPFS_URL`: a firmware binary by its CID, in the three
 * forms devices use. One rule behind all three ({@link FirmwareDownloadService}): the token's
 * tenant only, `Content-Length` and `x-MD5` always, Range, ETag, and the updater's free space.
 */
@ApiTags('Firmware download')
@ApiDeviceAuth()
@ApiServerError()
@Controller()
@UseGuards(DeviceTokenGuard)
export class IpfsController {
  constructor(private readonly downloads: FirmwareDownloadService) {}

  /** `POST /firmware/download` with `{"cid"}`: the form the ESP32, ESP8266 and Pycom SDKs use. */
  @Post('firmware/download')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Download a firmware binary by its CID (as the device SDKs ask)',
    description:
      'The request the ESP updaters send (HTTP/1.0, with their `x-ESP8266-…` / `x-ESP32-…` headers) and Pycom’s OTA code; ' +
      'the tenant’s own firmware only.',
  })
  @ApiBody({ type: DownloadFirmwareDto })
  @ApiDownload()
  @ApiJsonBodyErrors(['cid is required', 'cid must be a string'])
  async downloadByBody(
    @Principal() principal: DevicePrincipal,
    @Body() body: DownloadFirmwareDto,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.download(principal, body.cid, request, reply);
  }

  /** `GET /firmware/{cid}`: the form the platform's documentation shows. */
  @Get('firmware/:cid')
  @ApiOperation({ summary: 'Download a firmware binary by its CID', description: 'The tenant’s own firmware only.' })
  @ApiParam(CID_PARAM)
  @ApiDownload()
  async downloadByPath(
    @Principal() principal: DevicePrincipal,
    @Param('cid') cid: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.download(principal, cid, request, reply);
  }

  /** `GET /ipfs/{cid}`: the IPFS gateway path form, so a device can switch to any IPFS gateway. */
  @Get('ipfs/:cid')
  @ApiOperation({
    summary: 'Download a firmware binary by its CID (IPFS gateway path)',
    description: 'The IPFS gateway path form, so a device can switch to any IPFS gateway; the tenant’s own firmware only.',
  })
  @ApiParam(CID_PARAM)
  @ApiDownload()
  async downloadByGatewayPath(
    @Principal() principal: DevicePrincipal,
    @Param('cid') cid: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.download(principal, cid, request, reply);
  }

  /** The answer of all three forms: the tenant's binary `cid` (or why not), by the request's method and headers. */
  private async download(principal: DevicePrincipal, cid: string, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const updater = readUpdaterHeaders(request.headers);
    const downloader = {
      tenantId: principal.tenantId,
      deviceKeyId: principal.deviceKeyId,
      device: updater.mac === null ? null : { mac: updater.mac },
      freeSpace: updater.freeSpace,
    };
    await send(reply, await this.downloads.answer(downloader, { method: request.method, cid, headers: request.headers }));
  }
}

/**
 * Writes a download answer: status, headers, and the bytes when there are any. A HEAD answer
 * (fastify runs the GET handler for it) ends with an empty stream: fastify would measure any
 * other payload and replace the binary's `Content-Length` with 0.
 */
async function send(reply: FastifyReply, answer: DownloadAnswer): Promise<void> {
  const body = answer.body ?? (answer.status === 304 ? undefined : Readable.from([]));
  await reply.status(answer.status).headers(answer.headers).send(body);
}
