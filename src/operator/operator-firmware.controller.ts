import { Body, Controller, Get, Headers, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiCreatedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Readable } from 'node:stream';
import type { Actor } from '#src/domain/ledger/ledger-actor.js';
import { BodyStream, STREAM_MEDIA_TYPE, StreamBody, StreamBodyMessages } from '#src/platform/http/stream-body.js';
import {
  FIRMWARE_EMPTY,
  FIRMWARE_NOT_FOUND,
  FirmwareService,
  menderArtifactRefused,
  firmwareAlreadyPublished,
  firmwareTooLarge,
} from '#src/domain/firmware/firmware.service.js';
import { ApiMessageResponse, ApiOperatorAuth, ApiServerError } from '#src/platform/openapi/api-responses.js';
import type { Tenant } from '#src/domain/tenant/tenant.entity.js';
import {
  FirmwarePage,
  FirmwareResponse,
  ROLLBACK_TARGET_BOOLEAN,
  UpdateFirmwareRequest,
  UploadFirmwareMessages,
  UploadFirmwareQuery,
  UploadMenderArtifactQuery,
} from '#src/operator/dto/firmware.dto.js';
import { PageQuery, sliceOf } from '#src/operator/dto/paging.dto.js';
import { IdParamPipe } from './id-param.pipe.js';
import { ApiIdParam, ApiListQueryErrors, ApiOperatorChange, ApiTenantNotFound, ApiTenantParam } from './operator-docs.js';
import { TenantPipe } from './tenant.pipe.js';
import { INVALID_OPERATOR_TOKEN, OperatorActor, OperatorTokenGuard } from './operator-token.guard.js';
import { SESSION_ENDED } from '#src/domain/access/operator-session.service.js';
import { firmwareResponse, pageAnswer } from './operator-responses.js';

/** `FIRMWARE_MAX_BYTES` by default, for the documented 413 text. */
const DEFAULT_FIRMWARE_MAX_BYTES = 67108864;

/**
 * Firmware of a tenant on the operator API (docs/decisions.md §9): upload a binary as a streamed
 * body, list, get. Publishing is `FirmwareService.publish`, the same as `firmledger firmware publish`.
 */
@ApiTags('Firmware')
@ApiOperatorAuth(INVALID_OPERATOR_TOKEN, SESSION_ENDED)
@ApiServerError()
@ApiTenantParam()
@Controller('tenants/:tenant/firmware')
@UseGuards(OperatorTokenGuard)
export class OperatorFirmwareController {
  constructor(private readonly firmware: FirmwareService) {}

  /**
   * `POST /tenants/:tenant/firmware?version=&device_type=[&filename=]` with the binary as an
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
  @ApiOperation({
    summary: 'Upload (publish) a firmware binary: digests, CID, storage, ledger entry',
    description:
      'The body is the raw binary (`Content-Length` or chunked), streamed to storage, never held whole in memory; md5, ' +
      'sha256, size and the CID are computed from the stored bytes and `firmware.published` is appended to the ledger. ' +
      'A refused upload leaves nothing behind.',
  })
  @ApiConsumes(STREAM_MEDIA_TYPE)
  @ApiBody({ description: 'The firmware binary, raw bytes.', schema: { type: 'string', format: 'binary' } })
  @ApiHeader({
    name: 'Content-Length',
    required: false,
    description: 'Bytes of the binary; over FIRMWARE_MAX_BYTES is refused before a byte is read. Absent for a chunked body.',
    schema: { type: 'integer', example: 1048576 },
  })
  @ApiCreatedResponse({ description: 'Published.', type: FirmwareResponse })
  @ApiMessageResponse(400, 'A missing or bad `version` or `device_type` (the message names it), or an empty body.', [
    UploadFirmwareMessages.version.required,
    UploadFirmwareMessages.version.length,
    UploadFirmwareMessages.deviceType.required,
    UploadFirmwareMessages.deviceType.printable,
    UploadFirmwareMessages.filename,
    FIRMWARE_EMPTY,
  ])
  @ApiTenantNotFound()
  @ApiMessageResponse(409, 'The tenant already published this version for this device type.', firmwareAlreadyPublished('1.2.0', 'ESP32'))
  @ApiMessageResponse(
    413,
    'The declared `Content-Length`, or the bytes of a chunked body as soon as they cross it, are over FIRMWARE_MAX_BYTES ' +
      '(the text names the configured limit; 64 MiB by default).',
    firmwareTooLarge(DEFAULT_FIRMWARE_MAX_BYTES),
  )
  @ApiMessageResponse(415, 'The body is not `application/octet-stream`.', StreamBodyMessages.unsupportedMediaType)
  @ApiOperatorChange()
  async upload(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Query() query: UploadFirmwareQuery,
    @Headers('content-length') contentLength: string | undefined,
    @BodyStream() body: Readable,
    @OperatorActor() actor: Actor,
  ): Promise<FirmwareResponse> {
    const tenantId = tenant.id;
    const declaredBytes = contentLength !== undefined && /^\d+$/.test(contentLength) ? Number(contentLength) : undefined;
    const published = await this.firmware.publish(
      { tenantId, version: query.version, deviceType: query.device_type, filename: query.filename, declaredBytes, actor },
      body,
    );
    return firmwareResponse(published);
  }

  /**
   * `POST /tenants/:tenant/firmware/mender[?device_type=&filename=]` with a Mender artifact as an
   * `application/octet-stream` body → 201 {@link FirmwareResponse} (its version the artifact's name);
   * 400 not a Mender artifact (or not signed as the tenant requires), a device type it is not
   * compatible with; 404; 409; 413; 415 as the binary upload (docs/decisions.md §13).
   */
  @Post('mender')
  @StreamBody()
  @ApiOperation({
    summary: 'Upload (publish) a Mender artifact: its name is the version, its compatible device type the device type',
    description:
      'As the binary upload, while the artifact’s header is read: format version 3, `version` and header checked against the ' +
      'manifest, the signature checked when the tenant has an artifact verification key (then required). The payloads are ' +
      'checked by the Mender client as it installs them.',
  })
  @ApiConsumes(STREAM_MEDIA_TYPE)
  @ApiBody({ description: 'The Mender artifact (`.mender`), raw bytes.', schema: { type: 'string', format: 'binary' } })
  @ApiHeader({
    name: 'Content-Length',
    required: false,
    description: 'Bytes of the artifact; over FIRMWARE_MAX_BYTES is refused before a byte is read. Absent for a chunked body.',
    schema: { type: 'integer', example: 1048576 },
  })
  @ApiCreatedResponse({ description: 'Published.', type: FirmwareResponse })
  @ApiMessageResponse(400, 'Not a Mender artifact firmledger publishes (the message says why), or a bad query parameter.', [
    menderArtifactRefused('its first member is "hello.txt", not "version"'),
    'device_type must be one the artifact is compatible with: raspberrypi3, raspberrypi4 (it lists several: name one)',
    UploadFirmwareMessages.deviceType.printable,
    UploadFirmwareMessages.filename,
    FIRMWARE_EMPTY,
  ])
  @ApiTenantNotFound()
  @ApiMessageResponse(
    409,
    'The tenant already published this version for this device type.',
    firmwareAlreadyPublished('release-2', 'raspberrypi4'),
  )
  @ApiMessageResponse(413, 'Over FIRMWARE_MAX_BYTES (64 MiB by default).', firmwareTooLarge(DEFAULT_FIRMWARE_MAX_BYTES))
  @ApiMessageResponse(415, 'The body is not `application/octet-stream`.', StreamBodyMessages.unsupportedMediaType)
  @ApiOperatorChange()
  async uploadMender(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Query() query: UploadMenderArtifactQuery,
    @Headers('content-length') contentLength: string | undefined,
    @BodyStream() body: Readable,
    @OperatorActor() actor: Actor,
  ): Promise<FirmwareResponse> {
    const declaredBytes = contentLength !== undefined && /^\d+$/.test(contentLength) ? Number(contentLength) : undefined;
    const published = await this.firmware.publishMenderArtifact(
      { tenantId: tenant.id, deviceType: query.device_type, filename: query.filename, declaredBytes, actor },
      body,
    );
    return firmwareResponse(published);
  }

  /** `GET /tenants/:tenant/firmware?page=&per_page=` → 200 {@link FirmwarePage}, oldest first. */
  @Get()
  @ApiOperation({ summary: "List the tenant's firmware (paged)" })
  @ApiOkResponse({ type: FirmwarePage, description: 'One page of firmware, oldest first.' })
  @ApiListQueryErrors()
  @ApiTenantNotFound()
  async list(@Param('tenant', TenantPipe) tenant: Tenant, @Query() query: PageQuery): Promise<FirmwarePage> {
    return pageAnswer(await this.firmware.page(tenant.id, sliceOf(query)), query, firmwareResponse);
  }

  /** `GET /tenants/:tenant/firmware/:id` → 200 {@link FirmwareResponse}; 404 `Firmware not found` (also another tenant's). */
  @Get(':id')
  @ApiOperation({ summary: 'Get one firmware with its digests and CID' })
  @ApiIdParam('Firmware id.')
  @ApiOkResponse({ type: FirmwareResponse, description: 'The firmware.' })
  @ApiTenantNotFound('the tenant has no firmware with this id', FIRMWARE_NOT_FOUND)
  async get(@Param('tenant', TenantPipe) tenant: Tenant, @Param('id', IdParamPipe) id: number): Promise<FirmwareResponse> {
    return firmwareResponse(await this.firmware.get(tenant.id, id));
  }

  /**
   * `PATCH /tenants/:tenant/firmware/:id` `{rollback_target}` → 200 {@link FirmwareResponse}; 400 not a
   * boolean; 404 `Firmware not found`. Marks the firmware as a rollback target (or takes the mark
   * away), recorded on the ledger (docs/decisions.md §10.4).
   */
  @Patch(':id')
  @ApiOperation({
    summary: 'Mark a firmware as a rollback target (or take the mark away)',
    description:
      'Only a firmware marked as a rollback target may be named by a rollout’s rollback policy, and so go down in version ' +
      '(docs/decisions.md §10.4). The change is a ledger entry (`firmware.rollback_target`).',
  })
  @ApiIdParam('Firmware id.')
  @ApiOkResponse({ type: FirmwareResponse, description: 'The firmware, changed.' })
  @ApiMessageResponse(400, '`rollback_target` is missing or not a boolean.', ROLLBACK_TARGET_BOOLEAN)
  @ApiTenantNotFound('the tenant has no firmware with this id', FIRMWARE_NOT_FOUND)
  @ApiOperatorChange()
  async update(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Param('id', IdParamPipe) id: number,
    @Body() body: UpdateFirmwareRequest,
    @OperatorActor() actor: Actor,
  ): Promise<FirmwareResponse> {
    return firmwareResponse(await this.firmware.setRollbackTarget(tenant.id, id, body.rollback_target, actor));
  }
}
