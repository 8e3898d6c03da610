import { applyDecorators, Body, Controller, Get, HttpCode, Inject, Param, Post, Put, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { controllerIdMessage } from '#src/platform/common/device-identifier.js';
import { JsonTextMessages } from '#src/platform/common/json-text.js';

/** 400 text of a `controllerId` path parameter that cannot be one. */
const INVALID_CONTROLLER_ID = controllerIdMessage('controllerId');
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { ErrorMessages } from '#src/platform/http/http-error.filter.js';
import { RepairsControlCharacters } from '#src/platform/http/json-body.js';
import { normalizePrefix } from '#src/platform/listeners/listener-plan.js';
import { ApiMessageResponse, ApiServerError } from '#src/platform/openapi/api-responses.js';
import { FIRMWARE_NOT_FOUND } from '#src/domain/firmware/firmware.service.js';
import { RANGE_NOT_SATISFIABLE } from '#src/domain/delivery/firmware-download.service.js';
import { DDI_UNAUTHORIZED, DdiAuthGuard, DdiCaller, type DdiPrincipal } from './ddi-auth.guard.js';
import { ConfigDataMessages, FeedbackMessages } from './ddi-bodies.js';
import type { DeviceLinks } from './ddi-responses.js';
import { actionClosed, actionNotFound, DdiService, INVALID_ACTION_ID, INVALID_MODULE_ID } from './ddi.service.js';
import { DdiActionFeedback, DdiArtifact, DdiCancel, DdiConfigData, DdiControllerBase, DdiDeploymentBase } from './dto/ddi.dto.js';

/** The OpenAPI security schemes of the DDI component (`Authorization: TargetToken …` / `GatewayToken …`). */
export const DdiSecuritySchemes = { targetToken: 'targetToken', gatewayToken: 'gatewayToken' } as const;

/** `/{tenant}/controller/v1/{controllerId}`: every DDI resource is under it. */
const CONTROLLER = ':tenant/controller/v1/:controllerId';

/** The path parameters, the credentials and the answers every DDI route shares. */
function ApiDdiRoute(): MethodDecorator {
  return applyDecorators(
    ApiParam({ name: 'tenant', description: 'the tenant’s name', example: 'acme' }),
    ApiParam({
      name: 'controllerId',
      description: "the device’s controller id: 1 to 256 letters, digits or -._~!$&'()*+,;=:@ (a hardware address is read as one)",
      example: 'pump-7',
    }),
    ApiSecurity(DdiSecuritySchemes.targetToken),
    ApiSecurity(DdiSecuritySchemes.gatewayToken),
    ApiMessageResponse(
      401,
      'No credential, a wrong one, or a tenant or device the credential does not admit (one answer for all).',
      DDI_UNAUTHORIZED,
    ),
    ApiMessageResponse(
      429,
      'Too many failed credentials from this address for this device or tenant; retry after `Retry-After` seconds.',
      ErrorMessages.tooManyRequests,
      {
        'Retry-After': { description: 'Seconds until the window ends.', schema: { type: 'integer', example: 42 } },
      },
    ),
  );
}

/** The `actionId` parameter and its errors. */
function ApiAction(): MethodDecorator {
  return applyDecorators(
    ApiParam({ name: 'actionId', description: 'the action id: the rollout id', example: '7' }),
    ApiMessageResponse(400, 'The controller id or the action id cannot be one.', [INVALID_CONTROLLER_ID, INVALID_ACTION_ID]),
    ApiMessageResponse(404, 'The device has no such action (or, for deploymentBase, it is being cancelled), or an empty path segment.', [
      actionNotFound('7'),
      ErrorMessages.notFound,
    ]),
  );
}

/** The query parameter of deploymentBase and installedBase. */
function ApiActionHistoryQuery(): MethodDecorator {
  return applyDecorators(
    ApiQuery({
      name: 'actionHistory',
      required: false,
      description:
        'how many of the device’s state changes in the action to include, newest first (negative: up to 100; 0, the default: none)',
      schema: { type: 'integer', example: 5 },
    }),
    ApiQuery({ name: 'c', required: false, description: 'the link’s change tag (ignored)', schema: { type: 'integer', example: 1454 } }),
  );
}

/** The 400 texts of a body the JSON parser refuses (docs/decisions.md §3). */
const JSON_REFUSALS = [ErrorMessages.malformedJson, JsonTextMessages.tooDeep, JsonTextMessages.prototypeKey];

/** A feedback body: its documentation and the errors of reading it. */
function ApiFeedbackBody(): MethodDecorator {
  return applyDecorators(
    ApiBody({ type: DdiActionFeedback }),
    ApiMessageResponse(400, 'The ids cannot be ones, the body is not JSON the server reads, or it lacks what hawkBit requires too.', [
      INVALID_CONTROLLER_ID,
      INVALID_ACTION_ID,
      ...JSON_REFUSALS,
      FeedbackMessages.status,
      FeedbackMessages.execution,
      FeedbackMessages.finished,
      FeedbackMessages.details,
    ]),
    ApiMessageResponse(413, 'The body is over the device body limit (16 KiB).', ErrorMessages.tooLarge),
    ApiMessageResponse(415, 'The body is not `application/json`.', ErrorMessages.unsupportedMediaType),
  );
}

/**
 * The DDI component, mounted at `DDI_URL` (docs/decisions.md §12): Eclipse hawkBit's Direct Device
 * Integration API as SWUpdate, rauc-hawkbit-updater, Zephyr and other hawkBit clients speak it.
 * Every POST and PUT is answered 200 with no body (clients treat 201 and 204 as errors).
 */
@ApiTags('DDI')
@ApiServerError()
@Controller()
@UseGuards(DdiAuthGuard)
export class DdiController {
  private readonly prefix: string;

  constructor(
    private readonly ddi: DdiService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.prefix = normalizePrefix(config.urls.ddi.pathname);
  }

  /** `GET /{tenant}/controller/v1/{controllerId}` → 200 polling interval and links. */
  @Get(CONTROLLER)
  @ApiOperation({
    summary: 'Root resource of a device: what to do next',
    description:
      '`config.polling.sleep` is the tenant’s DDI polling interval. `_links` names the action to take (`deploymentBase`), ' +
      'or to stop (`cancelAction`, which takes priority), the last action closed with success (`installedBase`), and ' +
      '`configData` while the device never sent its attributes. A device that polls with a gateway token is registered ' +
      'on its first poll.',
  })
  @ApiDdiRoute()
  @ApiOkResponse({ type: DdiControllerBase, description: 'What the device should do next.' })
  @ApiMessageResponse(400, 'The controller id cannot be one.', INVALID_CONTROLLER_ID)
  @ApiMessageResponse(404, 'An empty path segment: no route.', ErrorMessages.notFound)
  root(@DdiCaller() caller: DdiPrincipal, @Req() request: FastifyRequest): Promise<DdiControllerBase> {
    return this.ddi.root(caller, this.links(caller, request));
  }

  /** `GET …/deploymentBase/{actionId}` → 200 the deployment; 404. */
  @Get(`${CONTROLLER}/deploymentBase/:actionId`)
  @ApiOperation({
    summary: 'An action to take: the firmware, and how (forced, attempt, or skip for download-only)',
    description: 'The rollout’s firmware is the one chunk; its artifact keeps the file name it was published from.',
  })
  @ApiDdiRoute()
  @ApiAction()
  @ApiActionHistoryQuery()
  @ApiOkResponse({ type: DdiDeploymentBase, description: 'The deployment.' })
  deploymentBase(
    @DdiCaller() caller: DdiPrincipal,
    @Param('actionId') actionId: string,
    @Query('actionHistory') actionHistory: string | undefined,
    @Req() request: FastifyRequest,
  ): Promise<DdiDeploymentBase> {
    return this.ddi.deploymentBase(caller, actionId, historyCount(actionHistory), this.links(caller, request));
  }

  /** `POST …/deploymentBase/{actionId}/feedback` → 200; 400; 404; 410. */
  @Post(`${CONTROLLER}/deploymentBase/:actionId/feedback`)
  @HttpCode(200)
  @RepairsControlCharacters()
  @ApiOperation({
    summary: 'Feedback on an action: progress, closed with success or failure',
    description:
      '`closed`/`success` confirms the device (it reports it after booting the new image), `closed`/`failure` fails it with ' +
      'the details as its message, `proceeding` after the download makes it installed (the action stays offered until ' +
      'it closes). Raw line feeds inside strings are accepted; JSON that is still not valid is 400.',
  })
  @ApiDdiRoute()
  @ApiParam({ name: 'actionId', description: 'the action id: the rollout id', example: '7' })
  @ApiFeedbackBody()
  @ApiResponse({ status: 200, description: 'Recorded (no body).' })
  @ApiMessageResponse(404, 'The device has no such action, or an empty path segment.', [actionNotFound('7'), ErrorMessages.notFound])
  @ApiMessageResponse(410, 'The device already closed the action.', actionClosed('7'))
  async feedback(@DdiCaller() caller: DdiPrincipal, @Param('actionId') actionId: string, @Body() body: unknown): Promise<void> {
    await this.ddi.feedback(caller, actionId, body);
  }

  /** `GET …/cancelAction/{actionId}` → 200 the action to stop; 404. */
  @Get(`${CONTROLLER}/cancelAction/:actionId`)
  @ApiOperation({ summary: 'An action to stop: its rollout was paused or cancelled while the device had started on it' })
  @ApiDdiRoute()
  @ApiAction()
  @ApiOkResponse({ type: DdiCancel, description: 'The action to stop.' })
  cancelAction(@DdiCaller() caller: DdiPrincipal, @Param('actionId') actionId: string): Promise<DdiCancel> {
    return this.ddi.cancelAction(caller, actionId);
  }

  /** `POST …/cancelAction/{actionId}/feedback` → 200; 400; 404. */
  @Post(`${CONTROLLER}/cancelAction/:actionId/feedback`)
  @HttpCode(200)
  @RepairsControlCharacters()
  @ApiOperation({
    summary: 'Feedback on a cancellation',
    description: '`closed` with `success` acknowledges it: the device is pending again, offered the rollout if it resumes.',
  })
  @ApiDdiRoute()
  @ApiParam({ name: 'actionId', description: 'the action id: the rollout id', example: '7' })
  @ApiFeedbackBody()
  @ApiResponse({ status: 200, description: 'Recorded (no body).' })
  @ApiMessageResponse(404, 'The device has no such action, or an empty path segment.', [actionNotFound('7'), ErrorMessages.notFound])
  async cancelFeedback(@DdiCaller() caller: DdiPrincipal, @Param('actionId') actionId: string, @Body() body: unknown): Promise<void> {
    await this.ddi.cancelFeedback(caller, actionId, body);
  }

  /** `PUT …/configData` → 200; 400. */
  @Put(`${CONTROLLER}/configData`)
  @HttpCode(200)
  @RepairsControlCharacters()
  @ApiOperation({
    summary: 'The device’s attributes (serial number, hardware revision…)',
    description: 'Kept and shown to operators; `mode` merge (the default), replace or remove.',
  })
  @ApiDdiRoute()
  @ApiBody({ type: DdiConfigData })
  @ApiResponse({ status: 200, description: 'Kept (no body).' })
  @ApiMessageResponse(
    400,
    'The controller id cannot be one, the body is not JSON the server reads, or not attributes within hawkBit’s limits.',
    [INVALID_CONTROLLER_ID, ...JSON_REFUSALS, ConfigDataMessages.data, ConfigDataMessages.mode],
  )
  @ApiMessageResponse(404, 'An empty path segment: no route.', ErrorMessages.notFound)
  @ApiMessageResponse(413, 'The body is over the device body limit (16 KiB).', ErrorMessages.tooLarge)
  @ApiMessageResponse(415, 'The body is not `application/json`.', ErrorMessages.unsupportedMediaType)
  async configData(@DdiCaller() caller: DdiPrincipal, @Body() body: unknown): Promise<void> {
    await this.ddi.configData(caller, body);
  }

  /** `GET …/installedBase/{actionId}` → 200 a closed action; 404. */
  @Get(`${CONTROLLER}/installedBase/:actionId`)
  @ApiOperation({ summary: 'An action the device closed (confirmed, failed or fell back)' })
  @ApiDdiRoute()
  @ApiAction()
  @ApiActionHistoryQuery()
  @ApiOkResponse({ type: DdiDeploymentBase, description: 'The deployment the device closed.' })
  installedBase(
    @DdiCaller() caller: DdiPrincipal,
    @Param('actionId') actionId: string,
    @Query('actionHistory') actionHistory: string | undefined,
    @Req() request: FastifyRequest,
  ): Promise<DdiDeploymentBase> {
    return this.ddi.installedBase(caller, actionId, historyCount(actionHistory), this.links(caller, request));
  }

  /** `GET …/softwaremodules/{softwareModuleId}/artifacts` → 200 the firmware's artifacts; 404. */
  @Get(`${CONTROLLER}/softwaremodules/:softwareModuleId/artifacts`)
  @ApiOperation({ summary: 'The artifacts of a firmware (a software module) of the device’s type' })
  @ApiDdiRoute()
  @ApiParam({ name: 'softwareModuleId', description: 'the firmware id', example: '3' })
  @ApiOkResponse({ type: [DdiArtifact], description: 'Its one artifact.' })
  @ApiMessageResponse(400, 'The ids cannot be ones.', [INVALID_CONTROLLER_ID, INVALID_MODULE_ID])
  @ApiMessageResponse(404, 'No such firmware of the tenant for the device’s type, or an empty path segment.', [
    FIRMWARE_NOT_FOUND,
    ErrorMessages.notFound,
  ])
  artifacts(
    @DdiCaller() caller: DdiPrincipal,
    @Param('softwareModuleId') moduleId: string,
    @Req() request: FastifyRequest,
  ): Promise<DdiArtifact[]> {
    return this.ddi.artifacts(caller, moduleId, this.links(caller, request));
  }

  /** `GET …/softwaremodules/{id}/artifacts/{fileName}` (or `{fileName}.MD5SUM`) → 200/206 bytes, 200 MD5SUM text; 404; 416. */
  @Get(`${CONTROLLER}/softwaremodules/:softwareModuleId/artifacts/:fileName`)
  @ApiOperation({
    summary: 'Download an artifact (Range, ETag), or its `.MD5SUM` file',
    description:
      'Served as the IPFS component serves firmware: `Content-Length` and `x-MD5` always, one `Range` answered 206, `ETag` the ' +
      'quoted CID; recorded for the device, which is then downloading in the rollouts that offered it.',
  })
  @ApiDdiRoute()
  @ApiParam({ name: 'softwareModuleId', description: 'the firmware id', example: '3' })
  @ApiParam({ name: 'fileName', description: 'the artifact’s file name, or it with `.MD5SUM`', example: 'pump-1.1.0.swu' })
  @ApiHeader({ name: 'Range', required: false, description: 'One byte range (RFC 9110).', example: 'bytes=262144-' })
  @ApiResponse({
    status: 200,
    description: 'The whole artifact (`application/octet-stream`), or the MD5SUM file (`text/plain`, `<md5>  <filename>`).',
    content: {
      'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
      'text/plain': { schema: { type: 'string', example: 'a0637c1ccb9fd53e2ba6f45712516989  pump-1.1.0.swu' } },
    },
  })
  @ApiResponse({
    status: 206,
    description: 'The requested range.',
    content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
  })
  @ApiMessageResponse(400, 'The ids cannot be ones.', [INVALID_CONTROLLER_ID, INVALID_MODULE_ID])
  @ApiMessageResponse(404, 'No such firmware of the tenant for the device’s type, another file name, or an empty path segment.', [
    FIRMWARE_NOT_FOUND,
    ErrorMessages.notFound,
  ])
  @ApiMessageResponse(416, 'The range lies outside the artifact.', RANGE_NOT_SATISFIABLE)
  async download(
    @DdiCaller() caller: DdiPrincipal,
    @Param('softwareModuleId') moduleId: string,
    @Param('fileName') fileName: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const result = await this.ddi.artifact(caller, moduleId, fileName, request.method, request.headers);
    const disposition = `attachment;filename=${encodeURIComponent(result.filename)}`;
    if (result.kind === 'md5sum') {
      await reply.status(200).type('text/plain; charset=us-ascii').header('Content-Disposition', disposition).send(result.text);
      return;
    }
    const { answer } = result;
    // A HEAD answer (fastify runs the GET handler for it) ends with an empty stream: fastify would
    // measure any other payload and replace the artifact's Content-Length with 0.
    const body = answer.body ?? (answer.status === 304 ? undefined : Readable.from([]));
    await reply
      .status(answer.status)
      .headers({ ...answer.headers, 'Content-Disposition': disposition })
      .send(body);
  }

  /** Where the device's resources are, as it reached this listener (scheme and host of its request). */
  private links(caller: DdiPrincipal, request: FastifyRequest): DeviceLinks {
    const origin = `${request.protocol}://${request.host}`;
    return {
      controller: `${origin}${this.prefix}/${encodeURIComponent(caller.tenantPath)}/controller/v1/${caller.controllerId}`,
      http: request.protocol === 'http',
    };
  }
}

/** The `actionHistory` query value as a count: 0 when absent or not a whole number. */
function historyCount(text: string | undefined): number {
  return text !== undefined && /^-?\d{1,9}$/.test(text) ? Number(text) : 0;
}
