import { Module } from '@nestjs/common';
import { AuthModule } from '#src/auth/auth.module.js';
import { LedgerModule } from '#src/ledger/ledger.module.js';
import { DeviceModule } from '#src/device/device.module.js';
import { FirmwareModule } from '#src/firmware/firmware.module.js';
import { GroupModule } from '#src/group/group.module.js';
import { FleetService } from './fleet.service.js';
import { RolloutPlanService } from './rollout-plan.service.js';
import { NextRolloutShortcut } from './next-rollout.shortcut.js';
import { RolloutController } from './rollout.controller.js';
import { RolloutRepository } from './rollout.repository.js';
import { RolloutService } from './rollout.service.js';

/** Next-rollout choice, success records and rollout lifecycle; device groups are {@link GroupModule}'s. */
@Module({
  imports: [AuthModule, LedgerModule, DeviceModule, FirmwareModule, GroupModule],
  controllers: [RolloutController],
  providers: [RolloutRepository, RolloutService, NextRolloutShortcut, RolloutPlanService, FleetService],
  exports: [RolloutPlanService, FleetService],
})
export class RolloutModule {}
