import { Injectable } from '@nestjs/common';
import { Counter, Histogram, Registry } from 'prom-client';
import type { RequestLabels, RequestMetricsSink } from '#src/platform/logging/request-observer.js';

const LABELS = ['method', 'route', 'status_code', 'component'] as const;

/**
 * `http_requests_total` and `http_request_duration_seconds` (histogram, seconds), labelled by
 * method, route pattern as mounted (`unmatched` when no route matched), status code and component.
 * Fed by the request observer's `onResponse` hook.
 */
@Injectable()
export class HttpMetrics implements RequestMetricsSink {
  private readonly requests: Counter<(typeof LABELS)[number]>;
  private readonly duration: Histogram<(typeof LABELS)[number]>;

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route pattern, status code and component',
      labelNames: LABELS,
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from receiving a request to finishing its response, seconds',
      labelNames: LABELS,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    });
  }

  observe(labels: RequestLabels, seconds: number): void {
    this.requests.inc(labels);
    this.duration.observe(labels, seconds);
  }
}
