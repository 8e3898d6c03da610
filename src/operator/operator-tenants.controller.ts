import { BadRequestException, Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Actor } from '#src/domain/ledger/ledger-actor.js';
import { ApiJsonBodyErrors, ApiMessageResponse, ApiOperatorAuth, ApiServerError } from '#src/platform/openapi/api-responses.js';
import { TenantService } from '#src/domain/tenant/tenant.service.js';
import { PageQuery, sliceOf } from '#src/operator/dto/paging.dto.js';
import { CreateTenantDto, DdiPollingDto, TenantPage, TenantResponse, TenantWithKeyResponse } from '#src/operator/dto/tenant.dto.js';
import { INVALID_POLLING_SLEEP, parsePollingSleep } from '#src/domain/tenant/ddi-polling.js';
import { INVALID_ARTIFACT_VERIFY_KEY } from '#src/platform/crypto/public-key.js';
import { ArtifactVerifyKeyDto } from '#src/operator/dto/device-auth.dto.js';
import { ApiListQueryErrors, ApiTenantNotFound, ApiTenantParam, OperatorExamples } from './operator-docs.js';
import { ApiOperatorChange } from './operator-docs.js';
import { INVALID_OPERATOR_TOKEN, OperatorActor, OperatorTokenGuard } from './operator-token.guard.js';
import { SESSION_ENDED } from '#src/domain/access/operator-session.service.js';
import { pageAnswer, tenantResponse, tenantWithKeyResponse } from './operator-responses.js';

/** Tenants (customers) under `OPERATOR_URL` (docs/decisions.md §5, §9). The customer key is shown on create and rotate only. */
@ApiTags('Tenants')
@ApiOperatorAuth(INVALID_OPERATOR_TOKEN, SESSION_ENDED)
@ApiServerError()
@UseGuards(OperatorTokenGuard)
@Controller('tenants')
export class OperatorTenantsController {
  constructor(private readonly tenants: TenantService) {}

  /** `POST /tenants` `{name}` → 201 tenant with its customer key (shown only here and on rotate); 400; 409 `Tenant "x" exists`. */
  @Post()
  @ApiOperation({ summary: 'Create a tenant; its customer key is shown in this answer only' })
  @ApiCreatedResponse({ type: TenantWithKeyResponse, description: 'The tenant with its new customer key.' })
  @ApiJsonBodyErrors(['name must be a string', OperatorExamples.tenantName])
  @ApiMessageResponse(409, 'A tenant with this name exists.', OperatorExamples.tenantExists)
  @ApiOperatorChange()
  async create(@Body() body: CreateTenantDto, @OperatorActor() actor: Actor): Promise<TenantWithKeyResponse> {
    return tenantWithKeyResponse(await this.tenants.createTenant(body.name, actor));
  }

  /** `GET /tenants?page&per_page` → 200 one page of tenants by id, without keys; 400 for bad paging. */
  @Get()
  @ApiOperation({ summary: 'List tenants (never their customer keys)' })
  @ApiOkResponse({ type: TenantPage, description: 'One page of tenants, by id.' })
  @ApiListQueryErrors()
  async list(@Query() query: PageQuery): Promise<TenantPage> {
    return pageAnswer(await this.tenants.pageTenants(sliceOf(query)), query, tenantResponse);
  }

  /** `GET /tenants/:tenant` (id or name) → 200 tenant without its key; 404 `Tenant "x" not found`. */
  @Get(':tenant')
  @ApiOperation({ summary: 'One tenant by id or name (never its customer key)' })
  @ApiTenantParam()
  @ApiOkResponse({ type: TenantResponse, description: 'The tenant.' })
  @ApiTenantNotFound()
  async get(@Param('tenant') tenant: string): Promise<TenantResponse> {
    return tenantResponse(await this.tenants.getTenant(tenant));
  }

  /**
   * `POST /tenants/:tenant/customer-key/rotate` → 200 tenant with its new customer key (shown
   * only here); 404 `Tenant "x" not found`. Logins signed with the old key are refused at once;
   * device tokens issued before stay valid until they expire (`JWT_TTL_SECONDS`). Recorded on the
   * ledger as `tenant.customer-key-rotated` (without the key).
   */
  @Post(':tenant/customer-key/rotate')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Rotate the customer key',
    description:
      'Replaces the customer key with a new random one, shown in this answer only. Devices must sign new logins with it: ' +
      'the old key stops working for logins at once. Device tokens issued before the rotation stay valid until they expire ' +
      '(JWT_TTL_SECONDS); revoke the device keys to cut devices off at once.',
  })
  @ApiTenantParam()
  @ApiOkResponse({ type: TenantWithKeyResponse, description: 'The tenant with its new customer key.' })
  @ApiTenantNotFound()
  @ApiOperatorChange()
  async rotate(@Param('tenant') tenant: string, @OperatorActor() actor: Actor): Promise<TenantWithKeyResponse> {
    return tenantWithKeyResponse(await this.tenants.rotateCustomerKey(tenant, actor));
  }

  /**
   * `PUT /tenants/:tenant/ddi-polling` `{sleep: "HH:MM:SS"}` → 200 tenant; 400 bad interval; 404.
   * Its hawkBit DDI devices are told the interval from their next poll on (docs/decisions.md §12).
   */
  @Put(':tenant/ddi-polling')
  @ApiOperation({
    summary: 'Set how often the tenant’s hawkBit DDI devices poll',
    description: 'The interval is `config.polling.sleep` of every DDI root answer from now on (default 00:05:00). Recorded on the ledger.',
  })
  @ApiTenantParam()
  @ApiOkResponse({ type: TenantResponse, description: 'The tenant.' })
  @ApiJsonBodyErrors([INVALID_POLLING_SLEEP])
  @ApiTenantNotFound()
  @ApiOperatorChange()
  async setDdiPolling(
    @Param('tenant') tenant: string,
    @Body() body: DdiPollingDto,
    @OperatorActor() actor: Actor,
  ): Promise<TenantResponse> {
    const seconds = parsePollingSleep(body.sleep);
    if (seconds === null) throw new BadRequestException(INVALID_POLLING_SLEEP);
    return tenantResponse(await this.tenants.setDdiPolling(tenant, seconds, actor));
  }

  /**
   * `PUT /tenants/:tenant/artifact-verify-key` `{public_key}` → 200 tenant; 400 not an RSA or ECDSA
   * PEM public key; 404. Mender artifacts published from now on must be signed with it (docs/decisions.md §13).
   */
  @Put(':tenant/artifact-verify-key')
  @ApiOperation({
    summary: 'Set the key the tenant’s Mender artifacts must be signed with',
    description:
      'From now on a Mender artifact is published only when it is signed and its signature verifies with this key (as a Mender ' +
      'client with `ArtifactVerifyKey` installs only those); the firmware records the key’s fingerprint. Recorded on the ledger.',
  })
  @ApiTenantParam()
  @ApiOkResponse({ type: TenantResponse, description: 'The tenant, with the key’s fingerprint.' })
  @ApiJsonBodyErrors(['public_key must be a string', INVALID_ARTIFACT_VERIFY_KEY])
  @ApiTenantNotFound()
  @ApiOperatorChange()
  async setArtifactVerifyKey(
    @Param('tenant') tenant: string,
    @Body() body: ArtifactVerifyKeyDto,
    @OperatorActor() actor: Actor,
  ): Promise<TenantResponse> {
    return tenantResponse(await this.tenants.setArtifactVerifyKey(tenant, body.public_key, actor));
  }

  /** `DELETE /tenants/:tenant/artifact-verify-key` → 200 tenant; 404. Signatures are then recorded, not required. */
  @Delete(':tenant/artifact-verify-key')
  @ApiOperation({
    summary: 'Remove the tenant’s artifact verification key: Mender artifacts are then published signed or not',
    description: 'Recorded on the ledger.',
  })
  @ApiTenantParam()
  @ApiOkResponse({ type: TenantResponse, description: 'The tenant.' })
  @ApiTenantNotFound()
  @ApiOperatorChange()
  async clearArtifactVerifyKey(@Param('tenant') tenant: string, @OperatorActor() actor: Actor): Promise<TenantResponse> {
    return tenantResponse(await this.tenants.setArtifactVerifyKey(tenant, null, actor));
  }
}
