import { Injectable, NotFoundException, UnauthorizedException } from '@nestjs/common';
import { Clock } from '#src/platform/common/clock.js';
import { isUniqueViolation } from '#src/platform/common/unique-violation.js';
import type { DevicePrincipal } from '#src/protocols/asvin/auth/device-principal.js';
import { admitDeviceKey } from '#src/domain/tenant/device-key-admission.js';
import { INVALID_TOKEN } from '#src/protocols/asvin/auth/device-token.guard.js';
import { nextRolloutResponse } from './rollout-responses.js';
import { DeviceMessages, DeviceService } from '#src/domain/device/device.service.js';
import type { MessageResponse } from '#src/platform/common/dto/message.dto.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import type { Device } from '#src/domain/device/device.entity.js';
import type {
  NextRolloutDto,
  RolloutFailureDto,
  RolloutResponse,
  RolloutSuccessDto,
} from '#src/protocols/asvin/rollout/dto/rollout.dto.js';
import { DeviceStateService } from '#src/domain/rollout/device-state.service.js';
import { chooseNextRollout } from '#src/domain/rollout/next-rollout.js';
import { wavesOf } from '#src/domain/rollout/rollout-plan.service.js';
import type { Rollout } from '#src/domain/rollout/rollout.entity.js';
import { GroupService } from '#src/domain/group/group.service.js';
import { RolloutRepository } from '#src/domain/rollout/rollout.repository.js';

/** Exact outcome texts (docs/device-interface.md, docs/decisions.md §6). */
export const RolloutMessages = {
  inserted: 'Successfully inserted!',
  existing: 'Existing Record',
  notFound: 'Rollout not found',
  /** A failure report that moved the device to `failed` (README "Rollout semantics"). */
  failureRecorded: 'Failure recorded',
} as const;

/** What devices ask of rollouts: the next one, and reporting success (docs/decisions.md §6, §8). */
@Injectable()
export class RolloutService {
  constructor(
    private readonly rollouts: RolloutRepository,
    private readonly states: DeviceStateService,
    private readonly groups: GroupService,
    private readonly devices: DeviceService,
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  /**
   * Records the version the device runs and when it was seen, confirms the rollouts it reported
   * success for (or marks them `fell_back`: README "Rollout semantics"), then answers the rollout
   * chosen by docs/decisions.md §8 and the device's state and wave in it, or `{}`; the device is then
   * `offered` in it (written behind, {@link DeviceStateService.offered}). Reads the token's device key, the device and its candidate
   * rollouts in one statement ({@link RolloutRepository.nextRolloutView}), so the key is checked
   * here with the one admission rule ({@link admitDeviceKey}, as {@link DeviceTokenService.verify}
   * does); nothing is written before both checks passed.
   * @param token the tenant and device key of a token whose signature and expiry are checked.
   * @throws UnauthorizedException `JWT is not valid` when the device key is revoked, gone or of
   *   another tenant (docs/decisions.md §3).
   * @throws NotFoundException `Device does't exist!`
   */
  async next(
    token: Pick<DevicePrincipal, 'tenantId' | 'deviceKeyId'>,
    dto: NextRolloutDto,
  ): Promise<RolloutResponse | Record<string, never>> {
    const now = this.clock.now();
    const view = await this.rollouts.nextRolloutView(token.deviceKeyId, token.tenantId, dto.mac, now);
    if (!admitDeviceKey(view?.key, token.tenantId)) throw new UnauthorizedException(INVALID_TOKEN);
    if (view.device === null) throw new NotFoundException(DeviceMessages.absent);
    await this.devices.reportVersion(view.device, dto.firmware_version);
    const device = { id: view.device.id, tenantId: token.tenantId, mac: dto.mac };
    if (view.installed.length > 0) await this.states.versionSeen(device, dto.firmware_version, view.installed);
    const chosen = chooseNextRollout(view.candidates, dto.firmware_version);
    if (!chosen) return {};
    if (chosen.state === null || chosen.state === 'pending') this.states.offered(chosen.id, device, chosen.waveCount);
    return nextRolloutResponse(chosen);
  }

  /**
   * Records a device's success for a rollout of its tenant that targets it. The first report
   * answers `Successfully inserted!` and moves the device to `installed`, or straight to
   * `confirmed` when it carries the rollout's target version (the device reports after its
   * reboot); later ones, also racing duplicates, answer `Existing Record`. Only a report of the
   * target version sets the device's version: a report of another version (the ESP32 reports
   * before its reboot, with the version it ran) changes it neither back nor forward.
   * @throws NotFoundException `Rollout not found` when the rollout is not the tenant's or
   *   does not target the device (including a device that is not registered).
   */
  async success(principal: DevicePrincipal, dto: RolloutSuccessDto): Promise<MessageResponse> {
    const { rollout, device, target } = await this.targeted(principal, dto);
    await this.states.flushOffers();
    try {
      await this.unitOfWork.transaction(async (manager) => {
        await this.rollouts.insertSuccess(manager, {
          rolloutId: rollout.id,
          deviceId: device.id,
          firmwareVersion: dto.firmware_version,
          createdAt: this.clock.now(),
        });
        if (dto.firmware_version === target) await this.devices.reportVersion(device, dto.firmware_version, manager);
        await this.states.successReported(manager, rollout, device, dto.firmware_version, target, wavesOf(rollout).length);
      });
      return { message: RolloutMessages.inserted };
    } catch (error) {
      if (isUniqueViolation(error)) return { message: RolloutMessages.existing };
      throw error;
    }
  }

  /**
   * Records a device's failure report for a rollout (same tenant and target rules as
   * {@link success}): the device is `failed` with its message, answered `Failure recorded`; a
   * device already confirmed, failed or fell back is left as it is, answered `Existing Record`.
   * The device's version is not changed.
   * @throws NotFoundException `Rollout not found` as {@link success}.
   */
  async failure(principal: DevicePrincipal, dto: RolloutFailureDto): Promise<MessageResponse> {
    const { rollout, device } = await this.targeted(principal, dto);
    const moved = await this.states.failureReported(rollout, device, dto.firmware_version, dto.message ?? null, wavesOf(rollout).length);
    return { message: moved ? RolloutMessages.failureRecorded : RolloutMessages.existing };
  }

  /** The rollout a report names, the reporting device and the target version. @throws NotFoundException `Rollout not found`. */
  private async targeted(
    principal: DevicePrincipal,
    dto: RolloutSuccessDto,
  ): Promise<{ rollout: Rollout; device: Device; target: string }> {
    const id = /^\d{1,15}$/.test(dto.rollout_id) ? Number(dto.rollout_id) : null;
    const rollout = id === null ? null : await this.rollouts.findRollout(principal.tenantId, id);
    if (!rollout || rollout.status === 'draft') throw new NotFoundException(RolloutMessages.notFound);
    const device = await this.devices.find(principal.tenantId, dto.mac);
    if (!device || !(await this.groups.isMember(rollout.groupId, device.mac))) {
      throw new NotFoundException(RolloutMessages.notFound);
    }
    const target = await this.rollouts.targetVersion(rollout.firmwareId);
    return { rollout, device, target };
  }
}
