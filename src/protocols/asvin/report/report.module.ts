import { Module } from '@nestjs/common';
import { AuthModule } from '#src/protocols/asvin/auth/auth.module.js';
import { DeviceRegistryModule } from '#src/domain/device/device-registry.module.js';
import { TenantModule } from '#src/domain/tenant/tenant.module.js';
import { ReportController } from './report.controller.js';
import { PdfReportRenderer } from './pdf-report.renderer.js';
import { ReportService } from './report.service.js';

/** JSON, XML and PDF reports of a tenant's devices. */
@Module({
  imports: [AuthModule, DeviceRegistryModule, TenantModule],
  controllers: [ReportController],
  providers: [ReportService, PdfReportRenderer],
})
export class ReportModule {}
