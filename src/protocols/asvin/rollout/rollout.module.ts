import { Module } from '@nestjs/common';
import { DeviceRegistryModule } from '#src/domain/device/device-registry.module.js';
import { GroupModule } from '#src/domain/group/group.module.js';
import { RolloutEngineModule } from '#src/domain/rollout/rollout-engine.module.js';
import { AuthModule } from '#src/protocols/asvin/auth/auth.module.js';
import { NextRolloutShortcut } from './next-rollout.shortcut.js';
import { RolloutController } from './rollout.controller.js';
import { RolloutService } from './rollout.service.js';

/** The version controller's rollout endpoints (next rollout, success and failure reports), mounted at `VC_URL`. */
@Module({
  imports: [AuthModule, DeviceRegistryModule, GroupModule, RolloutEngineModule],
  controllers: [RolloutController],
  providers: [RolloutService, NextRolloutShortcut],
})
export class RolloutModule {}
