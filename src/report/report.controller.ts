import { Controller, Get, Param, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DeviceTokenGuard } from '#src/auth/device-token.guard.js';
import { Principal, type DevicePrincipal } from '#src/auth/device-principal.js';
import type { DeviceResponse } from '#src/device/dto/device.dto.js';
import { ReportService } from './report.service.js';

/** `GET {vc_url}/api/report/:type` (INTERFACE.md, CONTRACT.md §6). */
@Controller('api/report')
@UseGuards(DeviceTokenGuard)
export class ReportController {
  constructor(private readonly reports: ReportService) {}

  /**
   * `json`: the device list; `xml`: `application/xml; charset=utf-8`; `pdf`: `application/pdf`
   * as an attachment. Any other type: 404 `Unknown report type`.
   */
  @Get(':type')
  async report(
    @Principal() principal: DevicePrincipal,
    @Param('type') type: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<DeviceResponse[] | string | Buffer> {
    const report = await this.reports.render(principal, type);
    if (report.type === 'json') return report.body;
    void reply.type(report.contentType);
    if (report.type === 'pdf') void reply.header('Content-Disposition', `attachment; filename="${report.filename}"`);
    return report.body;
  }
}
