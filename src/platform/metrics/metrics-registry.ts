import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * A registry of this app's own (never prom-client's global one, so several apps in one process
 * keep their counts apart), with prom-client's default process and Node.js metrics.
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}
