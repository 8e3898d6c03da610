import { Injectable, Logger } from '@nestjs/common';
import { errorMessage } from '#src/platform/logging/error-message.js';

/**
 * Told that devices of a tenant (by identifier; `null`: any number of them, e.g. a bulk import)
 * were registered, deleted, or changed what a group filter reads.
 */
export type DeviceChangeListener = (tenantId: number, macs: readonly string[] | null) => Promise<void>;

/**
 * Tells the modules that care that devices were registered or deleted or that their device type,
 * firmware version, name, attributes or labels changed (after the change committed), without the
 * device module knowing them: dynamic groups recompute their members (docs/decisions.md §10.3).
 * A listener's failure is logged, never the change's answer.
 */
@Injectable()
export class DeviceChanges {
  private readonly logger = new Logger('DeviceChanges');
  private readonly listeners: DeviceChangeListener[] = [];

  /** Adds a listener (modules call this once, at init). */
  listen(listener: DeviceChangeListener): void {
    this.listeners.push(listener);
  }

  /** Tells every listener, one after the other. */
  async changed(tenantId: number, macs: readonly string[] | null): Promise<void> {
    if (macs !== null && macs.length === 0) return;
    for (const listener of this.listeners) {
      try {
        await listener(tenantId, macs);
      } catch (error) {
        this.logger.error(`a listener of changed devices failed: ${errorMessage(error)}`);
      }
    }
  }
}
