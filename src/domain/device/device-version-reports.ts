import { Injectable, Logger } from '@nestjs/common';
import { errorMessage } from '#src/platform/logging/error-message.js';

/** Told of the version a registered device reports when it registers again. */
export type DeviceVersionListener = (tenantId: number, mac: string, firmwareVersion: string) => Promise<void>;

/**
 * Passes the version a device reports in a registration of a mac its tenant already has
 * (`Device exists!`, which leaves the stored record unchanged: docs/decisions.md §6) to the modules
 * that care, without the device module knowing them: rollouts confirm an update by it
 * (docs/decisions.md §10). A listener's failure is logged, never the registration's answer.
 */
@Injectable()
export class DeviceVersionReports {
  private readonly logger = new Logger('DeviceVersionReports');
  private readonly listeners: DeviceVersionListener[] = [];

  /** Adds a listener (modules call this once, at init). */
  listen(listener: DeviceVersionListener): void {
    this.listeners.push(listener);
  }

  /** Tells every listener, one after the other. */
  async reported(tenantId: number, mac: string, firmwareVersion: string): Promise<void> {
    for (const listener of this.listeners) {
      try {
        await listener(tenantId, mac, firmwareVersion);
      } catch (error) {
        this.logger.error(`a listener of ${mac}'s reported version failed: ${errorMessage(error)}`);
      }
    }
  }
}
