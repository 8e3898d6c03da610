import { Inject, Injectable, Logger, NotFoundException, UnprocessableEntityException, type OnApplicationBootstrap } from '@nestjs/common';
import type { Readable } from 'node:stream';
import type { DevicePrincipal } from '#src/protocols/asvin/auth/device-principal.js';
import { Clock } from '#src/platform/common/clock.js';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { DeviceService } from '#src/domain/device/device.service.js';
import { TenantRepository } from '#src/domain/tenant/tenant.repository.js';
import { fallbackFontsAvailable } from './pdf-report.js';
import { PdfReportRenderer } from './pdf-report.renderer.js';
import { jsonReportChunks } from './json-report.js';
import { xmlReportChunks } from './xml-report.js';
import type { DeviceRow } from './report-row.js';
import { deviceResponse } from '#src/protocols/asvin/device/device-responses.js';

/** Report formats of `GET /api/report/:type` (docs/device-interface.md). */
export const REPORT_TYPES = ['json', 'xml', 'pdf'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

/** 404 text for any other type (docs/decisions.md §6). */
export const UNKNOWN_REPORT_TYPE = 'Unknown report type';

/**
 * A report and how to send it. `json` and `xml` stream: their chunks are produced as the response
 * is written, a page of devices at a time, so memory stays flat whatever the number of devices.
 */
export type Report =
  | { type: 'json' | 'xml'; contentType: string; body: AsyncIterable<string> }
  | { type: 'pdf'; contentType: string; filename: string; body: Readable };

/** Reports of all devices of a tenant (docs/decisions.md §6). */
@Injectable()
export class ReportService implements OnApplicationBootstrap {
  constructor(
    private readonly devices: DeviceService,
    private readonly tenants: TenantRepository,
    private readonly clock: Clock,
    private readonly pdf: PdfReportRenderer,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Warns once at start when PDF reports can draw only Latin, Greek and Cyrillic. */
  onApplicationBootstrap(): void {
    if (!fallbackFontsAvailable(this.config.reportFallbackFonts)) {
      new Logger('Reports').warn(
        'no fallback font found: PDF reports draw only Latin, Greek and Cyrillic text. Install GNU Unifont (Debian: fonts-unifont) or set REPORT_FALLBACK_FONTS.',
      );
    }
  }

  /**
   * The report of one type: `json` and `xml` as chunks (see {@link Report}), `pdf` as the bytes a
   * worker thread renders ({@link PdfReportRenderer}), once the first are ready.
   * @throws NotFoundException `Unknown report type`.
   * @throws RetryLaterException for `pdf`: 429 when a PDF report of the tenant is being rendered,
   *   503 when the process renders as many as it may.
   * @throws UnprocessableEntityException for `pdf` of a tenant with more than `REPORT_PDF_MAX_DEVICES`
   *   devices ({@link pdfTooLargeMessage}).
   */
  async render(principal: DevicePrincipal, type: string): Promise<Report> {
    if (!(REPORT_TYPES as readonly string[]).includes(type)) throw new NotFoundException(UNKNOWN_REPORT_TYPE);
    switch (type as ReportType) {
      case 'json':
        return { type: 'json', contentType: 'application/json; charset=utf-8', body: jsonReportChunks(this.rows(principal.tenantId)) };
      case 'xml':
        return { type: 'xml', contentType: 'application/xml; charset=utf-8', body: xmlReportChunks(this.rows(principal.tenantId)) };
      case 'pdf': {
        const { total } = await this.devices.page(principal.tenantId, {}, { offset: 0, limit: 1 });
        if (total > this.config.reportPdfMaxDevices) {
          throw new UnprocessableEntityException(pdfTooLargeMessage(total, this.config.reportPdfMaxDevices));
        }
        const generatedAt = new Date(this.clock.now());
        const body = await this.pdf.render(principal.tenantId, async () => {
          const tenant = await this.tenants.findTenant(principal.tenantId);
          const { total } = await this.devices.page(principal.tenantId, {}, { offset: 0, limit: 1 });
          return {
            tenantName: tenant?.name ?? String(principal.tenantId),
            generatedAt,
            deviceCount: total,
            pages: this.rows(principal.tenantId),
            fallbackFonts: this.config.reportFallbackFonts,
          };
        });
        const stamp = generatedAt.toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
        return { type: 'pdf', contentType: 'application/pdf', filename: `device-report-${stamp}.pdf`, body };
      }
    }
  }

  /** The tenant's devices as report rows, a page at a time ({@link DeviceService.pages}). */
  private async *rows(tenantId: number): AsyncGenerator<DeviceRow[]> {
    for await (const page of this.devices.pages(tenantId, 'asvin')) yield page.map(deviceResponse);
  }
}

/** The 422 message of a PDF report over `REPORT_PDF_MAX_DEVICES` devices: why, and what to use instead. */
export function pdfTooLargeMessage(devices: number, max: number): string {
  const n = (value: number): string => value.toLocaleString('en');
  return (
    `A PDF report lists at most ${n(max)} devices (REPORT_PDF_MAX_DEVICES) and this tenant has ${n(devices)}: ` +
    'use the json or xml report, which stream any number of devices'
  );
}
