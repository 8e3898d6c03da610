import { Controller, Get, Header, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Registry } from 'prom-client';

/**
 * `GET {operator_url}/metrics`: Prometheus text exposition of this process's metrics. Only on the
 * operator listener (loopback by default); no token, as Prometheus scrapes commonly are.
 */
@Controller('metrics')
export class MetricsController {
  constructor(private readonly registry: Registry) {}

  /** 200 with prom-client's content type (`text/plain; version=0.0.4; charset=utf-8`). */
  @Get()
  @Header('Cache-Control', 'no-store')
  async scrape(@Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    void reply.type(this.registry.contentType);
    return this.registry.metrics();
  }
}
