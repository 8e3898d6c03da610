import { Injectable, NotFoundException, UnauthorizedException } from '@nestjs/common';
import { Clock, formatUtc } from '#src/common/clock.js';
import { isUniqueViolation } from '#src/common/unique-violation.js';
import type { DevicePrincipal } from '#src/auth/device-principal.js';
import { INVALID_TOKEN } from '#src/auth/device-token.guard.js';
import { DeviceMessages, DeviceService } from '#src/device/device.service.js';
import type { MessageResponse } from '#src/common/dto/message.dto.js';
import { UnitOfWork } from '#src/database/unit-of-work.js';
import type { NextRolloutDto, RolloutResponse, RolloutSuccessDto } from './dto/rollout.dto.js';
import { chooseNextRollout } from './next-rollout.js';
import { RolloutPlanService } from './rollout-plan.service.js';
import { GroupService } from '#src/group/group.service.js';
import { RolloutRepository } from './rollout.repository.js';

/** Exact outcome texts (INTERFACE.md, CONTRACT.md §6). */
export const RolloutMessages = {
  inserted: 'Successfully inserted!',
  existing: 'Existing Record',
  notFound: 'Rollout not found',
} as const;

/** What devices ask of rollouts: the next one, and reporting success (CONTRACT.md §6, §8). */
@Injectable()
export class RolloutService {
  constructor(
    private readonly rollouts: RolloutRepository,
    private readonly groups: GroupService,
    private readonly plans: RolloutPlanService,
    private readonly devices: DeviceService,
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  /**
   * Records the version the device runs and when it was seen, then answers the rollout chosen
   * by CONTRACT.md §8, or `{}`. Reads the token's device key, the device and its candidate
   * rollouts in one statement ({@link RolloutRepository.nextRolloutView}), so the key is checked
   * here again (the same rule as {@link DeviceTokenService.verify}); nothing is written before
   * both checks passed.
   * @param token the tenant and device key of a token whose signature and expiry are checked.
   * @throws UnauthorizedException `JWT is not valid` when the device key is revoked, gone or of
   *   another tenant (CONTRACT.md §3).
   * @throws NotFoundException `Device does't exist!`
   */
  async next(
    token: Pick<DevicePrincipal, 'tenantId' | 'deviceKeyId'>,
    dto: NextRolloutDto,
  ): Promise<RolloutResponse | Record<string, never>> {
    const now = this.clock.now();
    const view = await this.rollouts.nextRolloutView(token.deviceKeyId, token.tenantId, dto.mac, now);
    if (view === null || view.keyRevoked) throw new UnauthorizedException(INVALID_TOKEN);
    if (view.device === null) throw new NotFoundException(DeviceMessages.absent);
    await this.devices.reportVersion(view.device, dto.firmware_version);
    const chosen = chooseNextRollout(view.candidates, dto.firmware_version);
    if (!chosen) return {};
    return {
      rollout_id: String(chosen.id),
      rollout_name: chosen.name,
      priority: String(chosen.priority),
      start_date: formatUtc(chosen.startDate),
      version: chosen.version,
      firmware_id: String(chosen.firmwareId),
    };
  }

  /**
   * Records a device's success for a rollout of its tenant that targets it. The first report
   * answers `Successfully inserted!`, sets the device's version and counts toward progress
   * (finishing the rollout when every targeted device has reported); later ones, also racing
   * duplicates, answer `Existing Record`.
   * @throws NotFoundException `Rollout not found` when the rollout is not the tenant's or
   *   does not target the device (including a device that is not registered).
   */
  async success(principal: DevicePrincipal, dto: RolloutSuccessDto): Promise<MessageResponse> {
    const id = /^\d{1,15}$/.test(dto.rollout_id) ? Number(dto.rollout_id) : null;
    const rollout = id === null ? null : await this.rollouts.findRollout(principal.tenantId, id);
    if (!rollout || rollout.status === 'draft') throw new NotFoundException(RolloutMessages.notFound);
    const device = await this.devices.find(principal.tenantId, dto.mac);
    if (!device || !(await this.groups.isMember(rollout.groupId, device.mac))) {
      throw new NotFoundException(RolloutMessages.notFound);
    }
    try {
      await this.unitOfWork.transaction(async (manager) => {
        await this.rollouts.insertSuccess(manager, {
          rolloutId: rollout.id,
          deviceId: device.id,
          firmwareVersion: dto.firmware_version,
          createdAt: this.clock.now(),
        });
        await this.devices.reportVersion(device, dto.firmware_version, manager);
        await this.plans.finishIfComplete(manager, rollout);
      });
      return { message: RolloutMessages.inserted };
    } catch (error) {
      if (isUniqueViolation(error)) return { message: RolloutMessages.existing };
      throw error;
    }
  }
}
