import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { INVALID_IDENTIFIER } from '#src/platform/common/device-identifier.js';
import { INVALID_MAC } from '#src/platform/common/mac.js';
import { IdentifierParamPipe } from '#src/platform/http/identifier-param.pipe.js';
import { ApiJsonBodyErrors, ApiMessageResponse, ApiOperatorAuth, ApiServerError } from '#src/platform/openapi/api-responses.js';
import { SESSION_ENDED } from '#src/domain/access/operator-session.service.js';
import { deviceSpeaksOther } from '#src/domain/device/device.service.js';
import {
  alreadyAccepted,
  authSetNotFound,
  DeviceIdentityService,
  identityNotFound,
  ONE_IDENTITY,
} from '#src/domain/identity/device-identity.service.js';
import { INVALID_PUBLIC_KEY, PRIVATE_KEY_SENT } from '#src/domain/identity/device-public-key.js';
import { INVALID_ID_DATA } from '#src/domain/identity/identity-data.js';
import type { Actor } from '#src/domain/ledger/ledger-actor.js';
import type { Tenant } from '#src/domain/tenant/tenant.entity.js';
import { AuthSetListQuery, AuthSetPage, AuthSetResponse, DeviceAuthMessages, PreauthorizeDto } from '#src/operator/dto/device-auth.dto.js';
import { sliceOf } from '#src/operator/dto/paging.dto.js';
import { IdParamPipe } from './id-param.pipe.js';
import { ApiIdParam, ApiListQueryErrors, ApiOperatorChange, ApiTenantNotFound, ApiTenantParam } from './operator-docs.js';
import { authSetResponse, pageAnswer } from './operator-responses.js';
import { INVALID_OPERATOR_TOKEN, OperatorActor, OperatorTokenGuard } from './operator-token.guard.js';
import { TenantPipe } from './tenant.pipe.js';

/** The 404 of a route on one auth set. */
const ApiAuthSetNotFound = (): MethodDecorator => ApiTenantNotFound('the tenant has no auth set with this id', authSetNotFound(4));

/**
 * Mender device identities of a tenant under `OPERATOR_URL` (docs/decisions.md §13): the auth sets
 * devices asked to be admitted with (an identity and a public key), to accept or reject, and
 * preauthorizations; decommissioning a device. Every decision is recorded on the ledger.
 */
@ApiTags('Device identities')
@ApiOperatorAuth(INVALID_OPERATOR_TOKEN, SESSION_ENDED)
@ApiServerError()
@ApiTenantParam()
@UseGuards(OperatorTokenGuard)
@Controller('tenants/:tenant')
export class OperatorDeviceAuthController {
  constructor(private readonly identities: DeviceIdentityService) {}

  /** `GET /tenants/:tenant/device-auth-sets?status&page&per_page` → 200 one page of auth sets, newest first. */
  @Get('device-auth-sets')
  @ApiOperation({
    summary: 'List the Mender devices’ auth sets (pending ones: `?status=pending`), with identity and key fingerprint',
    description: 'Newest first. A pending device waits for an operator to accept or reject it.',
  })
  @ApiOkResponse({ type: AuthSetPage, description: 'One page of auth sets.' })
  @ApiListQueryErrors(DeviceAuthMessages.status)
  @ApiTenantNotFound()
  async list(@Param('tenant', TenantPipe) tenant: Tenant, @Query() query: AuthSetListQuery): Promise<AuthSetPage> {
    return pageAnswer(
      await this.identities.page(tenant.id, query.status === undefined ? [] : [query.status], sliceOf(query)),
      query,
      authSetResponse,
    );
  }

  /**
   * `POST /tenants/:tenant/device-auth-sets` `{mac | id_data, public_key}` → 201 the preauthorized
   * auth set; 400; 404 tenant; 409 the device already authenticates with the key.
   */
  @Post('device-auth-sets')
  @ApiOperation({
    summary: 'Preauthorize a Mender device: its identity and public key are accepted on its first request',
    description:
      'Give its `mac` (the device may send more attributes; its mac names it) or its whole `id_data`, and its public key. A key the ' +
      'identity had pending, rejected or decommissioned becomes preauthorized. Recorded on the ledger as `device.auth-set-preauthorized`.',
  })
  @ApiCreatedResponse({ type: AuthSetResponse, description: 'The preauthorized auth set.' })
  @ApiJsonBodyErrors([
    DeviceAuthMessages.mac,
    DeviceAuthMessages.idData,
    DeviceAuthMessages.publicKey,
    ONE_IDENTITY,
    INVALID_MAC,
    INVALID_ID_DATA,
    INVALID_PUBLIC_KEY.replace(/^pubkey/, 'public_key'),
    PRIVATE_KEY_SENT.replace(/^pubkey/, 'public_key'),
  ])
  @ApiTenantNotFound()
  @ApiMessageResponse(409, 'The device already authenticates with this key.', alreadyAccepted('02:00:00:00:00:01'))
  @ApiOperatorChange()
  async preauthorize(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Body() body: PreauthorizeDto,
    @OperatorActor() actor: Actor,
  ): Promise<AuthSetResponse> {
    return authSetResponse(
      await this.identities.preauthorize({ tenantId: tenant.id, mac: body.mac, idData: body.id_data, publicKey: body.public_key, actor }),
    );
  }

  /** `POST /tenants/:tenant/device-auth-sets/:id/accept` → 200 the accepted auth set; 404; 409. */
  @Post('device-auth-sets/:id/accept')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Accept a Mender device’s auth set: it authenticates with that key from now on',
    description:
      'Another key the identity was accepted with is rejected (one key per device at a time). The device is registered with the ' +
      'type of the device key its tenant token named. Recorded on the ledger as `device.auth-set-accepted`.',
  })
  @ApiIdParam('Auth set id.', 4)
  @ApiOkResponse({ type: AuthSetResponse, description: 'The accepted auth set.' })
  @ApiAuthSetNotFound()
  @ApiMessageResponse(409, 'The identifier names a device of another protocol.', deviceSpeaksOther('02:00:00:00:00:01', 'asvin'))
  @ApiOperatorChange()
  async accept(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Param('id', IdParamPipe) id: number,
    @OperatorActor() actor: Actor,
  ): Promise<AuthSetResponse> {
    return authSetResponse(await this.identities.accept(tenant.id, id, actor));
  }

  /** `POST /tenants/:tenant/device-auth-sets/:id/reject` → 200 the rejected auth set; 404. */
  @Post('device-auth-sets/:id/reject')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Reject a Mender device’s auth set: refused with that key, and its token stops working at once',
    description: 'Recorded on the ledger as `device.auth-set-rejected`.',
  })
  @ApiIdParam('Auth set id.', 4)
  @ApiOkResponse({ type: AuthSetResponse, description: 'The rejected auth set.' })
  @ApiAuthSetNotFound()
  @ApiOperatorChange()
  async reject(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Param('id', IdParamPipe) id: number,
    @OperatorActor() actor: Actor,
  ): Promise<AuthSetResponse> {
    return authSetResponse(await this.identities.reject(tenant.id, id, actor));
  }

  /** `POST /tenants/:tenant/devices/:mac/decommission` → 200 its auth sets, all decommissioned; 400; 404. */
  @Post('devices/:mac/decommission')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Decommission a Mender device: every key of its identity is refused until one is accepted again',
    description:
      'Its token stops working at once; the device and its history stay. Recorded on the ledger as `device.auth-set-decommissioned`.',
  })
  @ApiParam({ name: 'mac', description: 'The device’s identifier: its mac (any notation) or `mender-…`.', example: '02:00:00:00:00:01' })
  @ApiOkResponse({ type: [AuthSetResponse], description: 'Its auth sets, oldest first.' })
  @ApiMessageResponse(400, 'The path parameter is not a device identifier.', INVALID_IDENTIFIER)
  @ApiTenantNotFound('the tenant has no Mender device with this identifier', identityNotFound('02:00:00:00:00:01'))
  @ApiOperatorChange()
  async decommission(
    @Param('tenant', TenantPipe) tenant: Tenant,
    @Param('mac', IdentifierParamPipe) identifier: string,
    @OperatorActor() actor: Actor,
  ): Promise<AuthSetResponse[]> {
    return (await this.identities.decommission(tenant.id, identifier, actor)).map(authSetResponse);
  }
}
