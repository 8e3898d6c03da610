import {
  applyDecorators,
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  Inject,
  Param,
  Patch,
  Post,
  Put,
  Query,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import {
  ApiBody,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiResponse,
  ApiSecurity,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { JsonTextMessages } from '#src/platform/common/json-text.js';
import { ErrorMessages } from '#src/platform/http/http-error.filter.js';
import { JsonBodyLimit } from '#src/platform/http/json-body.js';
import { normalizePrefix } from '#src/platform/listeners/listener-plan.js';
import { ApiMessageResponse, ApiServerError } from '#src/platform/openapi/api-responses.js';
import { RANGE_NOT_SATISFIABLE } from '#src/domain/delivery/firmware-download.service.js';
import { FIRMWARE_NOT_FOUND } from '#src/domain/firmware/firmware.service.js';
import { INVALID_PUBLIC_KEY, PRIVATE_KEY_SENT } from '#src/domain/identity/device-public-key.js';
import type { IdentifiedDevice } from '#src/domain/identity/device-identity.service.js';
import { INVALID_ID_DATA } from '#src/domain/identity/identity-data.js';
import { MENDER_UNAUTHORIZED, MenderAuthGuard, MenderCaller } from './mender-auth.guard.js';
import { MenderMessages } from './mender-bodies.js';
import { deploymentAborted, deploymentNotFound, LINK_REFUSED, MENDER_AUTH_REFUSED, MenderService } from './mender.service.js';
import {
  MenderAuthRequest,
  MenderDeployment,
  MenderDeploymentLog,
  MenderInventoryAttribute,
  MenderNextRequest,
  MenderProvides,
  MenderStatusReport,
} from './dto/mender.dto.js';

/** The OpenAPI security scheme of the component's device routes (`Authorization: Bearer <device token>`). */
export const MENDER_TOKEN_SCHEME = 'menderToken';

/** Largest deployment log body, bytes: a client logging at debug level sends a few KiB to a few hundred. */
const LOG_BODY_LIMIT_BYTES = 1024 * 1024;

/** `/api/devices`: every route of the component is under it, as the client builds its URLs from `ServerURL`. */
const DEVICES = 'api/devices';
const NEXT_V1 = `${DEVICES}/v1/deployments/device/deployments/next`;

/** The token, the answers and the body errors every route with a device token shares. */
function ApiDeviceRoute(): MethodDecorator {
  return applyDecorators(
    ApiSecurity(MENDER_TOKEN_SCHEME),
    ApiMessageResponse(
      401,
      'No token, a wrong or expired one, or a device no longer accepted (the client authenticates again).',
      MENDER_UNAUTHORIZED,
    ),
    ApiMessageResponse(429, 'Too many failed tokens from this address; retry after `Retry-After` seconds.', ErrorMessages.tooManyRequests, {
      'Retry-After': { description: 'Seconds until the window ends.', schema: { type: 'integer', example: 42 } },
    }),
  );
}

/** The errors of reading a JSON body. */
function ApiJsonBody(messages: string[], limit = '16 KiB'): MethodDecorator {
  return applyDecorators(
    ApiMessageResponse(400, 'The body is not what the client sends.', [
      ErrorMessages.malformedJson,
      JsonTextMessages.tooDeep,
      JsonTextMessages.prototypeKey,
      ...messages,
    ]),
    ApiMessageResponse(413, `The body is over its limit (${limit}).`, ErrorMessages.tooLarge),
    ApiMessageResponse(415, 'The body is not `application/json`.', ErrorMessages.unsupportedMediaType),
  );
}

/** The `id` path parameter of a deployment and its 404. */
function ApiDeployment(): MethodDecorator {
  return applyDecorators(
    ApiParam({ name: 'id', description: 'the deployment id (the rollout id)', example: '7' }),
    ApiMessageResponse(
      404,
      'The device has no such deployment (not a started rollout of its tenant that targets it).',
      deploymentNotFound('7'),
    ),
  );
}

/**
 * The Mender component, mounted at `MENDER_URL` (docs/decisions.md §13): the Mender device API as
 * the Mender client (3.x) speaks it, configured with `ServerURL` = `MENDER_URL` and a device key as
 * its `TenantToken`. Status codes are Mender's exactly: authentication 200 with the raw token,
 * inventory 200, `next` 200 or 204, status and log 204 (409 for an aborted deployment).
 */
@ApiTags('Mender')
@ApiServerError()
@Controller()
export class MenderController {
  private readonly prefix: string;

  constructor(
    private readonly mender: MenderService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.prefix = normalizePrefix(config.urls.mender.pathname);
  }

  /** `POST /api/devices/v1/authentication/auth_requests` → 200 the raw token; 400; 401; 429. */
  @Post(`${DEVICES}/v1/authentication/auth_requests`)
  @HttpCode(200)
  @ApiOperation({
    summary: 'Authenticate: a device asks to be admitted with its identity, public key and tenant token',
    description:
      'The request must be signed with the device’s private key over its exact bytes (`X-MEN-Signature`). An accepted device ' +
      '(accepted by an operator, preauthorized, or admitted by a device key that accepts new devices) gets its token as the raw ' +
      'body; any other is 401: an unknown device is then pending until an operator accepts it.',
  })
  @ApiBody({ type: MenderAuthRequest })
  @ApiHeader({
    name: 'X-MEN-Signature',
    required: true,
    description: 'base64 signature of the body’s bytes: RSA PKCS #1 v1.5 over SHA-256, ECDSA (DER) over SHA-256, or Ed25519',
    example: 'MEUCIQDr2p1U0Qz9mS9l4W2h3dJm0Xr7vQK8XrM9Y0d3cM1lTQIgX6xYV4H0m1a8j0b1c2d3e4f5g6h7i8j9k0l1m2n3o4p=',
  })
  @ApiResponse({
    status: 200,
    description:
      'The device token (`application/jwt`), the whole body, no line break: `Authorization: Bearer <token>` for the other routes.',
    content: {
      'application/jwt': { schema: { type: 'string', example: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhdXRoLXNldDo3In0.c2ln' } },
    },
  })
  @ApiJsonBody([MenderMessages.authRequest, INVALID_ID_DATA, INVALID_PUBLIC_KEY, PRIVATE_KEY_SENT])
  @ApiMessageResponse(
    401,
    'Not admitted: pending, rejected or decommissioned, a signature that does not verify, no valid tenant token.',
    MENDER_AUTH_REFUSED,
  )
  @ApiMessageResponse(
    429,
    'Too many refused requests from this address for this identity; retry after `Retry-After` seconds.',
    ErrorMessages.tooManyRequests,
    {
      'Retry-After': { description: 'Seconds until the window ends.', schema: { type: 'integer', example: 42 } },
    },
  )
  async authenticate(
    @Body() body: unknown,
    @Headers('x-men-signature') signature: string | undefined,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const token = await this.mender.authenticate(body, signature, request.ip);
    await reply.status(200).type('application/jwt').send(token);
  }

  /** `PUT /api/devices/v1/inventory/device/attributes` → 200; 400. */
  @Put(`${DEVICES}/v1/inventory/device/attributes`)
  @HttpCode(200)
  @UseGuards(MenderAuthGuard)
  @ApiOperation({
    summary: 'The device’s inventory: its attributes replace the ones kept',
    description:
      'Kept and shown to operators, at most 100 (the first by name); `artifact_name` is the version the device runs. Answered 200 (the client ' +
      'takes nothing else).',
  })
  @ApiBody({ type: [MenderInventoryAttribute] })
  @ApiResponse({ status: 200, description: 'Kept (no body).' })
  @ApiDeviceRoute()
  @ApiJsonBody([MenderMessages.inventory])
  async putInventory(@MenderCaller() caller: IdentifiedDevice, @Body() body: unknown): Promise<void> {
    await this.mender.inventory(caller, body, 'replace');
  }

  /** `PATCH /api/devices/v1/inventory/device/attributes` → 200; 400. */
  @Patch(`${DEVICES}/v1/inventory/device/attributes`)
  @HttpCode(200)
  @UseGuards(MenderAuthGuard)
  @ApiOperation({ summary: 'Attributes of the device to add or change, the others kept', description: 'As PUT, merging.' })
  @ApiBody({ type: [MenderInventoryAttribute] })
  @ApiResponse({ status: 200, description: 'Kept (no body).' })
  @ApiDeviceRoute()
  @ApiJsonBody([MenderMessages.inventory])
  async patchInventory(@MenderCaller() caller: IdentifiedDevice, @Body() body: unknown): Promise<void> {
    await this.mender.inventory(caller, body, 'merge');
  }

  /** `POST /api/devices/v2/deployments/device/deployments/next` → 200 a deployment, 204 none; 400. */
  @Post(`${DEVICES}/v2/deployments/device/deployments/next`)
  @UseGuards(MenderAuthGuard)
  @ApiOperation({
    summary: 'The next deployment of the device, given what it has',
    description:
      'The rollout engine decides (waves, thresholds, pause, cancel, retry, start date, version order): the deployment, or 204. ' +
      '`artifact_name` is recorded as the version the device runs.',
  })
  @ApiBody({ type: MenderNextRequest })
  @ApiOkResponse({ type: MenderDeployment, description: 'A deployment to install.' })
  @ApiNoContentResponse({ description: 'Nothing to install.' })
  @ApiDeviceRoute()
  @ApiJsonBody([MenderMessages.deviceProvides, MenderMessages.artifactName])
  async nextV2(
    @MenderCaller() caller: IdentifiedDevice,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const provides = typeof body === 'object' && body !== null ? (body as { device_provides?: unknown }).device_provides : undefined;
    await this.answerNext(reply, await this.mender.next(caller, provides, this.base(request)));
  }

  /** `POST /api/devices/v1/deployments/device/deployments/next` → 200, 204; 400. */
  @Post(NEXT_V1)
  @UseGuards(MenderAuthGuard)
  @ApiOperation({ summary: 'The next deployment (the v1 form: the provides themselves as the body)' })
  @ApiBody({ type: MenderProvides })
  @ApiOkResponse({ type: MenderDeployment, description: 'A deployment to install.' })
  @ApiNoContentResponse({ description: 'Nothing to install.' })
  @ApiDeviceRoute()
  @ApiJsonBody([MenderMessages.deviceProvides, MenderMessages.artifactName])
  async nextV1(
    @MenderCaller() caller: IdentifiedDevice,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.answerNext(reply, await this.mender.next(caller, body, this.base(request)));
  }

  /** `GET /api/devices/v1/deployments/device/deployments/next?artifact_name=&device_type=` → 200, 204; 400. */
  @Get(NEXT_V1)
  @UseGuards(MenderAuthGuard)
  @ApiOperation({ summary: 'The next deployment (the oldest form: the provides as the query)' })
  @ApiQuery({ name: 'artifact_name', required: true, description: 'the artifact the device runs', example: 'release-1' })
  @ApiQuery({ name: 'device_type', required: false, description: 'the device’s type', example: 'raspberrypi4' })
  @ApiOkResponse({ type: MenderDeployment, description: 'A deployment to install.' })
  @ApiNoContentResponse({ description: 'Nothing to install.' })
  @ApiDeviceRoute()
  @ApiMessageResponse(400, 'No artifact name of 1 to 64 printable characters.', [
    MenderMessages.deviceProvides,
    MenderMessages.artifactName,
  ])
  async nextV1Get(
    @MenderCaller() caller: IdentifiedDevice,
    @Query('artifact_name') artifactName: unknown,
    @Query('device_type') deviceType: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const provides = { artifact_name: artifactName, device_type: deviceType };
    await this.answerNext(reply, await this.mender.next(caller, provides, this.base(request)));
  }

  /** `PUT /api/devices/v1/deployments/device/deployments/{id}/status` → 204; 400; 404; 409. */
  @Put(`${DEVICES}/v1/deployments/device/deployments/:id/status`)
  @HttpCode(204)
  @UseGuards(MenderAuthGuard)
  @ApiOperation({
    summary: 'Where the device is in a deployment',
    description:
      '`downloading` → downloading; `installing`, `rebooting` → installed; `success` (after its commit), `already-installed` → ' +
      'confirmed; `failure` → failed. Repeated reports change nothing more. 409 when the rollout was paused or cancelled ' +
      'before the device installed it: the client stops.',
  })
  @ApiBody({ type: MenderStatusReport })
  @ApiNoContentResponse({ description: 'Recorded.' })
  @ApiDeviceRoute()
  @ApiDeployment()
  @ApiJsonBody([MenderMessages.status])
  @ApiMessageResponse(
    409,
    'The deployment is aborted: its rollout was paused or cancelled before the device installed it.',
    deploymentAborted('7', 'cancelled'),
  )
  async status(@MenderCaller() caller: IdentifiedDevice, @Param('id') id: string, @Body() body: unknown): Promise<void> {
    await this.mender.status(caller, id, body);
  }

  /** `PUT /api/devices/v1/deployments/device/deployments/{id}/log` → 204; 400; 404. */
  @Put(`${DEVICES}/v1/deployments/device/deployments/:id/log`)
  @HttpCode(204)
  @JsonBodyLimit(LOG_BODY_LIMIT_BYTES)
  @UseGuards(MenderAuthGuard)
  @ApiOperation({
    summary: 'The log of a failed deployment',
    description: 'Kept with the device’s state in the rollout and shown with it; its error lines become the failure message.',
  })
  @ApiBody({ type: MenderDeploymentLog })
  @ApiNoContentResponse({ description: 'Kept.' })
  @ApiDeviceRoute()
  @ApiDeployment()
  @ApiJsonBody([MenderMessages.log], '1 MiB')
  async log(@MenderCaller() caller: IdentifiedDevice, @Param('id') id: string, @Body() body: unknown): Promise<void> {
    await this.mender.log(caller, id, body);
  }

  /** `GET /api/devices/v1/deployments/download/{tenant}/{firmware}/{device}?expires&signature` → 200/206 bytes; 403; 404; 416. */
  @Get(`${DEVICES}/v1/deployments/download/:tenantId/:firmwareId/:deviceId`)
  @ApiOperation({
    summary: 'Download an artifact through the signed link a deployment gave (no token)',
    description:
      'Served as every firmware download: `Content-Length` always (never chunked, never compressed), one `Range` answered 206; ' +
      'recorded for the device, which is then downloading in the rollouts that offered it.',
  })
  @ApiParam({ name: 'tenantId', description: 'the tenant id the link was signed for', example: '1' })
  @ApiParam({ name: 'firmwareId', description: 'the firmware id', example: '3' })
  @ApiParam({ name: 'deviceId', description: 'the device id the link was given to', example: '12' })
  @ApiQuery({
    name: 'expires',
    required: true,
    description: 'epoch seconds after which the link no longer works',
    schema: { type: 'string', example: '1800000000' },
  })
  @ApiQuery({
    name: 'signature',
    required: true,
    description: 'the link’s signature',
    schema: { type: 'string', example: 'Jq1bL0d3YV2v4h2Zc8QY8m0u1d2U3Cq9N2oQkz2xR1E' },
  })
  @ApiHeader({ name: 'Range', required: false, description: 'One byte range (a resumed download).', example: 'bytes=5000-' })
  @ApiResponse({
    status: 200,
    description: 'The artifact.',
    content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
  })
  @ApiResponse({
    status: 206,
    description: 'The requested range.',
    content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
  })
  @ApiMessageResponse(403, 'The link is not one firmledger signed, or it expired.', LINK_REFUSED)
  @ApiMessageResponse(404, 'The firmware or the device is gone.', FIRMWARE_NOT_FOUND)
  @ApiMessageResponse(416, 'The range lies outside the artifact.', RANGE_NOT_SATISFIABLE)
  async download(
    @Param('tenantId') tenantId: string,
    @Param('firmwareId') firmwareId: string,
    @Param('deviceId') deviceId: string,
    @Query('expires') expires: unknown,
    @Query('signature') signature: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const { answer, filename } = await this.mender.download(
      { tenantId, firmwareId, deviceId },
      { expires: typeof expires === 'string' ? expires : undefined, signature: typeof signature === 'string' ? signature : undefined },
      request.method,
      request.headers,
    );
    // A HEAD answer (fastify runs the GET handler for it) ends with an empty stream: fastify would
    // measure any other payload and replace the artifact's Content-Length with 0.
    const body = answer.body ?? (answer.status === 304 ? undefined : Readable.from([]));
    await reply
      .status(answer.status)
      .headers({ ...answer.headers, 'Content-Disposition': `attachment;filename=${encodeURIComponent(filename)}` })
      .send(body);
  }

  /** 200 with the deployment, or 204 without a body. */
  private async answerNext(reply: FastifyReply, deployment: MenderDeployment | null): Promise<void> {
    if (deployment === null) await reply.status(204).send();
    else await reply.status(200).type('application/json; charset=utf-8').send(deployment);
  }

  /** The component's base as the device reached it (scheme and host of its request): where download links point. */
  private base(request: FastifyRequest): string {
    return `${request.protocol}://${request.host}${this.prefix}`;
  }
}
