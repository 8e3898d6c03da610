import { Injectable, Logger } from '@nestjs/common';
import { Gauge, Registry } from 'prom-client';
import { RolloutProgressService, type RolloutView } from './rollout-progress.service.js';
import type { RolloutStatus } from './rollout.entity.js';
import { TenantService } from '#src/domain/tenant/tenant.service.js';
import { DEVICE_STATES } from './policy/device-states.js';
import { errorMessage } from '#src/platform/logging/error-message.js';

/** Rollout states whose progress is exported: the ones still running. */
const EXPORTED_STATUSES: readonly RolloutStatus[] = ['active', 'paused'];

const LABELS = ['tenant', 'rollout', 'status'] as const;

interface Progress {
  tenant: string;
  rollout: RolloutView;
}

/**
 * `firmledger_rollout_targeted`, `firmledger_rollout_updated` (confirmed) and
 * `firmledger_rollout_pending` (devices), labelled by tenant name, rollout id and status, and
 * `firmledger_rollout_devices` by state as well (docs/decisions.md §10), for active and
 * paused rollouts.
 * Computed at scrape time from {@link RolloutProgressService}'s view, the one operators see.
 * When the database cannot be read the gauges are left empty and the cause is logged.
 */
@Injectable()
export class RolloutMetrics {
  private readonly logger = new Logger('Metrics');
  private inFlight?: Promise<Progress[]>;

  constructor(
    registry: Registry,
    private readonly tenants: TenantService,
    private readonly rollouts: RolloutProgressService,
  ) {
    const gauge = (name: string, help: string, pick: (view: RolloutView) => number): void => {
      // prom-client collects the gauges concurrently; they share one read of the database.
      const read = () => this.progress();
      new Gauge({
        name,
        help,
        labelNames: LABELS,
        registers: [registry],
        async collect() {
          this.reset();
          for (const { tenant, rollout } of await read()) {
            this.set({ tenant, rollout: String(rollout.id), status: rollout.status }, pick(rollout));
          }
        },
      });
    };
    gauge(
      'firmledger_rollout_targeted',
      'Devices a running rollout targets (registered members of its group of its firmware’s device type)',
      (r) => r.targeted,
    );
    gauge('firmledger_rollout_updated', 'Devices confirmed on a running rollout’s version (they reported running it)', (r) => r.confirmed);
    gauge(
      'firmledger_rollout_pending',
      'Devices a running rollout still waits for (not confirmed, failed or fell back)',
      (r) => r.unsettled,
    );
    const read = () => this.progress();
    new Gauge({
      name: 'firmledger_rollout_devices',
      help: 'Devices of a running rollout in each state (pending, offered, downloading, installed, confirmed, failed, fell_back, timed_out)',
      labelNames: [...LABELS, 'state'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const { tenant, rollout } of await read()) {
          for (const state of DEVICE_STATES) {
            this.set({ tenant, rollout: String(rollout.id), status: rollout.status, state }, rollout.devices[state]);
          }
        }
      },
    });
  }

  private progress(): Promise<Progress[]> {
    this.inFlight ??= this.read().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private async read(): Promise<Progress[]> {
    try {
      const progress: Progress[] = [];
      for (const tenant of await this.tenants.listTenants()) {
        for (const rollout of await this.rollouts.list(tenant.id, EXPORTED_STATUSES)) progress.push({ tenant: tenant.name, rollout });
      }
      return progress;
    } catch (error) {
      this.logger.warn(`rollout progress not exported: ${errorMessage(error)}`);
      return [];
    }
  }
}
