import { Controller, Get, Param, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DeviceTokenGuard } from '#src/auth/device-token.guard.js';
import { Principal, type DevicePrincipal } from '#src/auth/device-principal.js';
import { ReportService } from './report.service.js';

/** `GET {vc_url}/api/report/:type` (INTERFACE.md, CONTRACT.md §6). */
@Controller('api/report')
@UseGuards(DeviceTokenGuard)
export class ReportController {
  constructor(private readonly reports: ReportService) {}

  /**
   * `json`: the device list; `xml`: `application/xml; charset=utf-8`; `pdf`: `application/pdf`
   * as an attachment. Any other type: 404 `Unknown report type`. `json` and `xml` are streamed
   * (Nest sends an async iterable as it is produced, headers once the first chunk is ready).
   */
  @Get(':type')
  async report(
    @Principal() principal: DevicePrincipal,
    @Param('type') type: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<AsyncIterable<string> | Buffer> {
    const report = await this.reports.render(principal, type);
    void reply.type(report.contentType);
    if (report.type === 'pdf') void reply.header('Content-Disposition', `attachment; filename="${report.filename}"`);
    return report.body;
  }
}
