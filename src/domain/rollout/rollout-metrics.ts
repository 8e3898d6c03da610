import { Injectable, Logger } from '@nestjs/common';
import { Gauge, Registry } from 'prom-client';
import { RolloutProgressService, type RolloutView } from './rollout-progress.service.js';
import type { RolloutStatus } from './rollout.entity.js';
import { TenantService } from '#src/domain/tenant/tenant.service.js';
import { DEVICE_STATES } from './policy/device-states.js';
import { errorMessage } from '#src/platform/logging/error-message.js';
import { Clock } from '#src/platform/common/clock.js';
import { RolloutRepository } from './rollout.repository.js';
import { minuteOf, rampAllowance } from './policy/ramp.js';

/** Rollout states whose progress is exported: the ones still running. */
const EXPORTED_STATUSES: readonly RolloutStatus[] = ['active', 'paused'];

const LABELS = ['tenant', 'rollout', 'status'] as const;

interface Progress {
  tenant: string;
  rollout: RolloutView;
  /** With a ramp: new offers allowed a minute now, and taken in the current minute (docs/decisions.md §10.1). */
  ramp?: { allowance: number; thisMinute: number };
}

/**
 * `firmledger_rollout_targeted`, `firmledger_rollout_updated` (confirmed) and
 * `firmledger_rollout_pending` (devices), labelled by tenant name, rollout id and status, and
 * `firmledger_rollout_devices` by state as well (docs/decisions.md §10), for active and
 * paused rollouts; for those with a ramp `firmledger_rollout_ramp_allowance_per_minute` and
 * `firmledger_rollout_ramp_offers_this_minute`, for those with maintenance windows
 * `firmledger_rollout_window_open` (1/0) and `firmledger_rollout_next_window_seconds`
 * (docs/decisions.md §10.1).
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
    private readonly repository: RolloutRepository,
    private readonly clock: Clock,
  ) {
    const gauge = (name: string, help: string, pick: (progress: Progress) => number | null): void => {
      // prom-client collects the gauges concurrently; they share one read of the database.
      const read = () => this.progress();
      new Gauge({
        name,
        help,
        labelNames: LABELS,
        registers: [registry],
        async collect() {
          this.reset();
          for (const progress of await read()) {
            const value = pick(progress);
            const { tenant, rollout } = progress;
            if (value !== null) this.set({ tenant, rollout: String(rollout.id), status: rollout.status }, value);
          }
        },
      });
    };
    gauge(
      'firmledger_rollout_targeted',
      'Devices a running rollout targets (registered members of its group of its firmware’s device type)',
      ({ rollout: r }) => r.targeted,
    );
    gauge(
      'firmledger_rollout_updated',
      'Devices confirmed on a running rollout’s version (they reported running it)',
      ({ rollout: r }) => r.confirmed,
    );
    gauge(
      'firmledger_rollout_pending',
      'Devices a running rollout still waits for (not confirmed, failed or fell back)',
      ({ rollout: r }) => r.unsettled,
    );
    gauge(
      'firmledger_rollout_ramp_allowance_per_minute',
      'New offers a running rollout with a ramp may make in the current minute (its rate after the increments reached)',
      ({ ramp }) => ramp?.allowance ?? null,
    );
    gauge(
      'firmledger_rollout_ramp_offers_this_minute',
      'New offers a running rollout with a ramp made in the current minute (all instances)',
      ({ ramp }) => ramp?.thisMinute ?? null,
    );
    gauge(
      'firmledger_rollout_window_open',
      'Whether a maintenance window of a running rollout with windows is open now (1) or not (0)',
      ({ rollout: r }) => (r.windows.length === 0 ? null : r.windowOpen ? 1 : 0),
    );
    gauge(
      'firmledger_rollout_next_window_seconds',
      'Seconds until a maintenance window of a running rollout with windows opens; 0 while one is open',
      ({ rollout: r }) => {
        if (r.windows.length === 0) return null;
        if (r.windowOpen) return 0;
        return r.nextWindowAt === null ? null : Math.max(0, (Date.parse(r.nextWindowAt) - this.clock.now()) / 1000);
      },
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
      // The ramps' counts of all rollouts in one query, the allowance as the engine computes it.
      const counts = await this.repository.rampCountsOfRunning(minuteOf(this.clock.now()));
      for (const item of progress) {
        const count = counts.get(item.rollout.id);
        if (item.rollout.ramp && count) item.ramp = { allowance: rampAllowance(item.rollout.ramp, count), thisMinute: count.thisMinute };
      }
      return progress;
    } catch (error) {
      this.logger.warn(`rollout progress not exported: ${errorMessage(error)}`);
      return [];
    }
  }
}
