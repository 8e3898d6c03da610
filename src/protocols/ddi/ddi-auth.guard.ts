import {
  BadRequestException,
  CanActivate,
  ExecutionContext,
  Inject,
  Injectable,
  UnauthorizedException,
  createParamDecorator,
} from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { canonicalIdentifier, controllerIdMessage } from '#src/platform/common/device-identifier.js';
import { isStorableText, unstorableTextMessage } from '#src/platform/common/input-rules.js';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { ErrorMessages, RetryLaterException } from '#src/platform/http/http-error.filter.js';
import { setRequestActor } from '#src/platform/logging/request-actor.js';
import { FailedAuthentication, type FailureRule } from '#src/domain/access/failed-authentication.js';
import type { Device } from '#src/domain/device/device.entity.js';
import { DeviceService } from '#src/domain/device/device.service.js';
import type { Tenant } from '#src/domain/tenant/tenant.entity.js';
import { TenantService } from '#src/domain/tenant/tenant.service.js';

/** The one 401 text of the DDI component: whatever was wrong with the credential, or the tenant (docs/decisions.md §12). */
export const DDI_UNAUTHORIZED = 'A valid TargetToken or GatewayToken is required';

/** Who a DDI request comes from, once {@link DdiAuthGuard} admitted it. */
export interface DdiPrincipal {
  tenant: Tenant;
  /** The device the path names (registered on its first poll with a gateway token). */
  device: Device;
  /** The tenant as the path wrote it. */
  tenantPath: string;
  /** The controller id as the path wrote it (a mac in any notation stays as sent). */
  controllerId: string;
}

const PRINCIPAL = Symbol('firmledger.ddi');

/** The two credentials of hawkBit's DDI security (`SecurityTokenAuthenticator`, `GatewayTokenAuthenticator`): the scheme, one space, the token. */
const SCHEME = /^(TargetToken|GatewayToken) (.+)$/;

/**
 * Admits DDI requests as hawkBit does (docs/decisions.md §11, §12): `Authorization: TargetToken
 * <token>` with the target token of the device the path names, or `Authorization: GatewayToken
 * <token>` with a device key of the tenant the path names that is flagged `ddi_gateway` (not
 * revoked), for any DDI device of the tenant: a device that is not registered yet is registered on
 * that first request, of the key's device type; an asvin or Mender device is never reachable so,
 * nor is any device with a key that is not flagged (an asvin fleet key, a Mender tenant token).
 * Anonymous requests are refused. A controller id that cannot be one is 400; every
 * other refusal (unknown tenant, unknown device, wrong token, none) is the one 401
 * {@link DDI_UNAUTHORIZED}, so nothing tells a tenant or device that exists from one that does not.
 *
 * Failures follow the one rule for failed authentication ({@link FailedAuthentication},
 * docs/decisions.md §4): counted per client address and the device (target token) or tenant
 * (gateway token) the credential names; over `LOGIN_RATE_LIMIT` in `LOGIN_RATE_WINDOW_SECONDS`,
 * failed attempts are answered 429 with `Retry-After` until the window ends. A valid token is never
 * refused because others failed from the same address. The path's tenant and device are reached
 * only through the credential, so another tenant's device is never reachable.
 */
@Injectable()
export class DdiAuthGuard implements CanActivate {
  private readonly rule: FailureRule;

  constructor(
    private readonly tenants: TenantService,
    private readonly devices: DeviceService,
    private readonly failures: FailedAuthentication,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.rule = { scope: 'ddi-token', limit: config.loginRateLimit, windowSeconds: config.loginRateWindowSeconds };
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest & { [PRINCIPAL]?: DdiPrincipal }>();
    const { tenant: tenantPath, controllerId } = request.params as { tenant: string; controllerId: string };
    if (!isStorableText(tenantPath)) throw new BadRequestException(unstorableTextMessage('tenant'));
    const identifier = canonicalIdentifier(controllerId);
    if (identifier === null) throw new BadRequestException(controllerIdMessage('controllerId'));
    const [, scheme, token] = SCHEME.exec(request.headers.authorization ?? '') ?? [];
    const subject = scheme === 'TargetToken' ? `target ${tenantPath}/${identifier}` : `gateway ${tenantPath}`;
    const principal = scheme === undefined ? null : await this.authenticate(scheme, token, tenantPath, identifier);
    if (principal === null) {
      const standing = await this.failures.failed(this.rule, { address: request.ip, subject });
      if (standing.retryAfter !== null) throw new RetryLaterException(429, ErrorMessages.tooManyRequests, standing.retryAfter);
      throw new UnauthorizedException(DDI_UNAUTHORIZED);
    }
    request[PRINCIPAL] = { ...principal, tenantPath, controllerId };
    setRequestActor(request, `ddi ${tenantPath}/${identifier}`);
    return true;
  }

  /** The tenant and device the credential admits, or `null`. */
  private async authenticate(
    scheme: string,
    token: string,
    tenantPath: string,
    identifier: string,
  ): Promise<Pick<DdiPrincipal, 'tenant' | 'device'> | null> {
    const tenant = await this.tenants.tenantNamed(tenantPath);
    if (tenant === null) return null;
    if (scheme === 'TargetToken') {
      const device = await this.devices.find(tenant.id, identifier);
      return device && this.devices.hasTargetToken(device, token) ? { tenant, device } : null;
    }
    const key = await this.tenants.gatewayKey(tenant.id, token);
    if (key === null) return null;
    const device = await this.devices.registerByGateway(
      { tenantId: tenant.id, deviceKeyId: key.id, deviceType: key.deviceType },
      identifier,
    );
    return device === null ? null : { tenant, device };
  }
}

/** Injects the {@link DdiPrincipal} set by {@link DdiAuthGuard}. */
export const DdiCaller = createParamDecorator(
  (_data: unknown, context: ExecutionContext): DdiPrincipal =>
    context.switchToHttp().getRequest<{ [PRINCIPAL]: DdiPrincipal }>()[PRINCIPAL],
);
