import { Controller, Get, Headers, Param, Post, Query, UseGuards } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiBody,
  ApiConflictResponse,
  ApiConsumes,
  ApiCreatedResponse,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiPayloadTooLargeResponse,
  ApiTags,
  ApiUnauthorizedResponse,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import type { Readable } from 'node:stream';
import { BodyStream, STREAM_MEDIA_TYPE, StreamBody } from '#src/common/stream-body.js';
import { FirmwareService } from '#src/firmware/firmware.service.js';
import type { Tenant } from '#src/tenant/tenant.entity.js';
import { FirmwarePage, FirmwareResponse, UploadFirmwareQuery, firmwareResponse } from './dto/firmware.dto.js';
import { PageQuery, pageOf } from './dto/paging.dto.js';
import { IdParamPipe } from './id-param.pipe.js';
import { TenantPipe } from './tenant.pipe.js';
import { OperatorTokenGuard } from './operator-token.guard.js';

/**
 * Firmware of a tenant on the operator API (CONTRACT.md §9): upload a binary as a streamed
 * body, list, get. Publishing is `FirmwareService.publish`, the same as `firmledger firmware publish`.
 */
@ApiTags('firmware')
@ApiBearerAuth('operatorToken')
@ApiUnauthorizedResponse({ description: '`{"message":"Operator token is not valid"}`' })
@ApiNotFoundResponse({ description: '`Tenant "x" not found`; `Firmware not found`' })
@ApiParam({ name: 'tenant', description: 'tenant id (digits) or name', example: 'acme' })
@Controller('tenants/:tenant/firmware')
@UseGuards(OperatorTokenGuard)
export class OperatorFirmwareController {
  constructor(private readonly firmware: FirmwareService) {}

  /**
   * `POST /tenants/:tenant/firmware?version=&device_type=` with the binary as an
   * `application/octet-stream` body (with `Content-Length` or chunked). The body is streamed to
   * storage (then md5, sha256, size and the CID are computed from the stored file); it is never
   * held whole in memory.
   * → 201 {@link FirmwareResponse}; 400 missing/invalid `version` or `device_type`, or an empty
   * body; 404 unknown tenant; 409 version already published for the type; 413 over
   * `FIRMWARE_MAX_BYTES` (a declared `Content-Length` at once, a chunked body as soon as it
   * crosses; nothing is kept); 415 another media type.
   */
  @Post()
  @StreamBody()
  @ApiOperation({ summary: 'Upload (publish) a firmware binary: digests, CID, storage, ledger entry' })
  @ApiConsumes(STREAM_MEDIA_TYPE)
  @ApiBody({ description: 'the firmware binary, raw bytes', schema: { type: 'string', format: 'binary' } })
  @ApiHeader({ name: 'Content-Length', required: false, description: 'bytes; over FIRMWARE_MAX_BYTES is refused before reading' })
  @ApiCreatedResponse({ description: 'published', type: FirmwareResponse })
  @ApiBadRequestResponse({ description: 'a field named, e.g. `version is required`; `Firmware binary is empty`' })
  @ApiConflictResponse({ description: '`Firmware 1.2.0 for ESP32 is already published`' })
  @ApiPayloadTooLargeResponse({ description: '`Firmware binary is larger than 67108864 bytes (FIRMWARE_MAX_BYTES)`' })
  @ApiUnsupportedMediaTypeResponse({ description: '`Body must be application/octet-stream`' })
  async upload(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Query() query: UploadFirmwareQuery,
    @Headers('content-length') contentLength: string | undefined,
    @BodyStream() body: Readable,
  ): Promise<FirmwareResponse> {
    const tenantId = tenant.id;
    const declaredBytes = contentLength !== undefined && /^\d+$/.test(contentLength) ? Number(contentLength) : undefined;
    const published = await this.firmware.publish({ tenantId, version: query.version, deviceType: query.device_type, declaredBytes }, body);
    return firmwareResponse(published);
  }

  /** `GET /tenants/:tenant/firmware?page=&per_page=` → 200 {@link FirmwarePage}, oldest first. */
  @Get()
  @ApiOperation({ summary: "List the tenant's firmware (paged)" })
  @ApiOkResponse({ type: FirmwarePage })
  @ApiBadRequestResponse({ description: 'bad paging, e.g. `per_page must be at most 500`' })
  async list(@Param('tenant', TenantPipe) tenant: Tenant, @Query() query: PageQuery): Promise<FirmwarePage> {
    const tenantId = tenant.id;
    const { items, total } = await this.firmware.page(tenantId, { offset: query.offset, limit: query.per_page });
    return pageOf(items.map(firmwareResponse), total, query);
  }

  /** `GET /tenants/:tenant/firmware/:id` → 200 {@link FirmwareResponse}; 404 `Firmware not found` (also another tenant's). */
  @Get(':id')
  @ApiOperation({ summary: 'Get one firmware with its digests and CID' })
  @ApiParam({ name: 'id', description: 'firmware id', example: 1 })
  @ApiOkResponse({ type: FirmwareResponse })
  @ApiBadRequestResponse({ description: '`id must be a whole number`' })
  async get(@Param('tenant', TenantPipe) tenant: Tenant, @Param('id', IdParamPipe) id: number): Promise<FirmwareResponse> {
    return firmwareResponse(await this.firmware.get(tenant.id, id));
  }
}
