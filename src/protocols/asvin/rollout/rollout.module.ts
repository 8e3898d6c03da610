import { Module } from '@nestjs/common';
import { RolloutEngineModule } from '#src/domain/rollout/rollout-engine.module.js';
import { AuthModule } from '#src/protocols/asvin/auth/auth.module.js';
import { NextRolloutShortcut } from './next-rollout.shortcut.js';
import { RolloutController } from './rollout.controller.js';
import { RolloutService } from './rollout.service.js';

/** The version controller's rollout endpoints (next rollout, success and failure reports), mounted at `VC_URL`. */
@Module({
  imports: [AuthModule, RolloutEngineModule],
  controllers: [RolloutController],
  providers: [RolloutService, NextRolloutShortcut],
})
export class RolloutModule {}
