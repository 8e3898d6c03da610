import { Injectable, NotFoundException, UnauthorizedException } from '@nestjs/common';
import { Clock } from '#src/platform/common/clock.js';
import type { MessageResponse } from '#src/platform/common/dto/message.dto.js';
import { admitDeviceKey } from '#src/domain/tenant/device-key-admission.js';
import { DeviceMessages } from '#src/domain/device/device.service.js';
import { DeviceRolloutService, ROLLOUT_NOT_FOUND } from '#src/domain/rollout/device-rollout.service.js';
import { RolloutRepository } from '#src/domain/rollout/rollout.repository.js';
import type { DevicePrincipal } from '#src/protocols/asvin/auth/device-principal.js';
import { INVALID_TOKEN } from '#src/protocols/asvin/auth/device-token.guard.js';
import type { NextRolloutBody, RolloutFailureDto, RolloutResponse, RolloutSuccessDto } from './dto/rollout.dto.js';
import { nextRolloutResponse } from './rollout-responses.js';

/** Exact outcome texts (docs/device-interface.md, docs/decisions.md §6). */
export const RolloutMessages = {
  inserted: 'Successfully inserted!',
  existing: 'Existing Record',
  notFound: ROLLOUT_NOT_FOUND,
  /** A failure report that moved the device to `failed` (docs/decisions.md §10). */
  failureRecorded: 'Failure recorded',
} as const;

/**
 * The version controller's rollout routes in the asvin device interface (docs/decisions.md §6, §8):
 * reads what the device sends, lets the rollout engine ({@link DeviceRolloutService}) decide, and
 * answers in the interface's shapes and texts.
 */
@Injectable()
export class RolloutService {
  constructor(
    private readonly rollouts: RolloutRepository,
    private readonly deviceRollouts: DeviceRolloutService,
    private readonly clock: Clock,
  ) {}

  /**
   * The next rollout for a device: what {@link DeviceRolloutService.poll} chooses, every value a
   * JSON string, or `{}`. Reads the token's device key, the device and its candidate rollouts in
   * one statement ({@link RolloutRepository.nextRolloutView}), so the key is checked here with the
   * one admission rule ({@link admitDeviceKey}, as the token guard does); nothing is written
   * before both checks passed.
   * @param token the tenant and device key of a token whose signature and expiry are checked.
   * @throws UnauthorizedException `JWT is not valid` when the device key is revoked, gone or of
   *   another tenant (docs/decisions.md §3).
   * @throws NotFoundException `Device does't exist!`
   */
  async next(
    token: Pick<DevicePrincipal, 'tenantId' | 'deviceKeyId'>,
    dto: NextRolloutBody,
  ): Promise<RolloutResponse | Record<string, never>> {
    const view = await this.rollouts.nextRolloutView(token.deviceKeyId, token.tenantId, dto.mac, this.clock.now());
    if (!admitDeviceKey(view?.key, token.tenantId)) throw new UnauthorizedException(INVALID_TOKEN);
    if (view.device === null) throw new NotFoundException(DeviceMessages.absent);
    const device = { ...view.device, tenantId: token.tenantId, mac: dto.mac };
    const chosen = await this.deviceRollouts.poll({ device, candidates: view.candidates, installed: view.installed }, dto.firmware_version);
    return chosen ? nextRolloutResponse(chosen) : {};
  }

  /**
   * A device's success report: `Successfully inserted!` the first time, `Existing Record` after
   * ({@link DeviceRolloutService.success}).
   * @throws NotFoundException `Rollout not found` when the rollout is not the tenant's or does not
   *   target the device (including a device that is not registered).
   */
  async success(principal: DevicePrincipal, dto: RolloutSuccessDto): Promise<MessageResponse> {
    const reported = await this.deviceRollouts.reported(principal.tenantId, dto.rollout_id, dto.mac);
    const outcome = await this.deviceRollouts.success(reported, dto.firmware_version);
    return { message: outcome === 'inserted' ? RolloutMessages.inserted : RolloutMessages.existing };
  }

  /**
   * A device's failure report: `Failure recorded` when the device moved to `failed`, else
   * `Existing Record` ({@link DeviceRolloutService.failure}).
   * @throws NotFoundException `Rollout not found` as {@link success}.
   */
  async failure(principal: DevicePrincipal, dto: RolloutFailureDto): Promise<MessageResponse> {
    const reported = await this.deviceRollouts.reported(principal.tenantId, dto.rollout_id, dto.mac);
    const moved = await this.deviceRollouts.failure(reported, dto.firmware_version, dto.message ?? null);
    return { message: moved ? RolloutMessages.failureRecorded : RolloutMessages.existing };
  }
}
