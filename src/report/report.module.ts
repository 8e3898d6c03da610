import { Module } from '@nestjs/common';
import { AuthModule } from '#src/auth/auth.module.js';
import { DeviceModule } from '#src/device/device.module.js';
import { TenantModule } from '#src/tenant/tenant.module.js';
import { ReportController } from './report.controller.js';
import { PdfReportRenderer } from './pdf-report.renderer.js';
import { ReportService } from './report.service.js';

/** JSON, XML and PDF reports of a tenant's devices. */
@Module({
  imports: [AuthModule, DeviceModule, TenantModule],
  controllers: [ReportController],
  providers: [ReportService, PdfReportRenderer],
})
export class ReportModule {}
