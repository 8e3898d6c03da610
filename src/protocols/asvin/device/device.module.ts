import { Module } from '@nestjs/common';
import { DeviceRegistryModule } from '#src/domain/device/device-registry.module.js';
import { AuthModule } from '#src/protocols/asvin/auth/auth.module.js';
import { DeviceController } from './device.controller.js';

/** The version controller's device endpoints (docs/decisions.md §6), mounted at `VC_URL`. */
@Module({
  imports: [AuthModule, DeviceRegistryModule],
  controllers: [DeviceController],
})
export class DeviceModule {}
