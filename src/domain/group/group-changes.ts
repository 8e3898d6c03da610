import { Injectable, Logger } from '@nestjs/common';
import { errorMessage } from '#src/platform/logging/error-message.js';

/** What changed in a group's members: the identifiers added and removed. */
export interface MembersChange {
  added: readonly string[];
  removed: readonly string[];
}

/** Told that the members of a group changed (after the change committed). */
export type GroupChangeListener = (groupId: number, change: MembersChange) => Promise<void>;

/**
 * Tells the modules that care that a group's members changed, without the group module knowing
 * them: devices that left the group are no targets of its running rollouts any more, and such a
 * rollout may now finish (docs/decisions.md §10: members that are not registered hold the finish).
 * A listener's failure is logged, never the change's answer.
 */
@Injectable()
export class GroupChanges {
  private readonly logger = new Logger('GroupChanges');
  private readonly listeners: GroupChangeListener[] = [];

  /** Adds a listener (modules call this once, at init). */
  listen(listener: GroupChangeListener): void {
    this.listeners.push(listener);
  }

  /** Tells every listener, one after the other. */
  async changed(groupId: number, change: MembersChange): Promise<void> {
    for (const listener of this.listeners) {
      try {
        await listener(groupId, change);
      } catch (error) {
        this.logger.error(`a listener of group ${groupId}'s members failed: ${errorMessage(error)}`);
      }
    }
  }
}
