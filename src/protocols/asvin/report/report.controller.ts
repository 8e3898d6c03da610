import { Controller, Get, Param, Res, UseGuards } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiParam, ApiTags, getSchemaPath, type HeadersObject } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import { DeviceTokenGuard } from '#src/protocols/asvin/auth/device-token.guard.js';
import { Principal, type DevicePrincipal } from '#src/protocols/asvin/auth/device-principal.js';
import { DeviceResponse } from '#src/protocols/asvin/device/dto/device.dto.js';
import { ApiMessageResponse, ApiServerError } from '#src/platform/openapi/api-responses.js';
import { ApiDeviceAuth } from '#src/protocols/asvin/auth/api-device-auth.js';
import { PDF_RETRY_AFTER_SECONDS, PdfRenderMessages } from './pdf-report.renderer.js';
import { pdfTooLargeMessage, REPORT_TYPES, ReportService, UNKNOWN_REPORT_TYPE } from './report.service.js';
import { renderXmlReport } from './xml-report.js';

/** `Retry-After` of a refused PDF render. */
const RETRY_AFTER: HeadersObject = {
  'Retry-After': { description: 'Seconds to wait before asking again.', schema: { type: 'integer', example: PDF_RETRY_AFTER_SECONDS } },
};

const EXAMPLE_DEVICE: DeviceResponse = { mac: 'AC:67:B2:01:02:03', name: 'pump-7', 'firmware-version': '1.0.0' };

/** `GET {vc_url}/api/report/:type` (docs/device-interface.md, docs/decisions.md §6). */
@ApiTags('Reports')
@ApiDeviceAuth()
@ApiServerError()
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
  @ApiOperation({
    summary: 'Report of all devices of the tenant',
    description:
      '`json`: the device list. `xml`: `<?xml version="1.0" encoding="UTF-8"?>`, root `root`, one `element` per device ' +
      'holding `firmware-version`, `mac`, `name`. `pdf`: a PDF (title, tenant, generation time, device count, a table of ' +
      'mac / name / firmware version) sent as an attachment (docs/decisions.md §6).',
  })
  @ApiParam({ name: 'type', description: 'Report format.', schema: { type: 'string', enum: [...REPORT_TYPES], example: 'xml' } })
  @ApiExtraModels(DeviceResponse)
  @ApiOkResponse({
    description: 'The report; its Content-Type follows `type`.',
    headers: {
      'Content-Disposition': {
        description: '`pdf` only: an attachment with a file name.',
        schema: { type: 'string', example: 'attachment; filename="device-report-20260101-120000.pdf"' },
      },
    },
    content: {
      'application/json': {
        schema: { type: 'array', items: { $ref: getSchemaPath(DeviceResponse) } },
        example: [EXAMPLE_DEVICE],
      },
      'application/xml': { schema: { type: 'string' }, example: renderXmlReport([EXAMPLE_DEVICE]) },
      'application/pdf': { schema: { type: 'string', format: 'binary' } },
    },
  })
  @ApiMessageResponse(404, 'Any type other than json, xml and pdf.', UNKNOWN_REPORT_TYPE)
  @ApiMessageResponse(
    422,
    '`pdf`: the tenant has more devices than a PDF report lists (`REPORT_PDF_MAX_DEVICES`); the json and xml reports stream any number.',
    pdfTooLargeMessage(1_000_000, 200_000),
  )
  @ApiMessageResponse(
    429,
    '`pdf`: a PDF report of the tenant is being rendered; try again after `Retry-After`.',
    PdfRenderMessages.tenantBusy,
    RETRY_AFTER,
  )
  @ApiMessageResponse(
    503,
    '`pdf`: the server renders as many PDF reports as it may at once; try again after `Retry-After`.',
    PdfRenderMessages.processBusy,
    RETRY_AFTER,
  )
  async report(
    @Principal() principal: DevicePrincipal,
    @Param('type') type: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<AsyncIterable<string> | Readable> {
    const report = await this.reports.render(principal, type);
    void reply.type(report.contentType);
    if (report.type === 'pdf') void reply.header('Content-Disposition', `attachment; filename="${report.filename}"`);
    return report.body;
  }
}
