import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { Clock } from '#src/common/clock.js';
import { canonicalMac } from '#src/common/mac.js';
import { isUniqueViolation } from '#src/common/unique-violation.js';
import { LedgerService, Subject } from '#src/chain/ledger.service.js';
import { UnitOfWork } from '#src/database/unit-of-work.js';
import type { DeviceGroup } from './device-group.entity.js';
import { RolloutRepository } from './rollout.repository.js';

/** A group as operators see it. */
export interface GroupView {
  id: number;
  name: string;
  members: number;
}

/** Device groups and membership by mac; membership can be planned before devices register. */
@Injectable()
export class GroupService {
  constructor(
    private readonly rollouts: RolloutRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly ledger: LedgerService,
    private readonly clock: Clock,
  ) {}

  /** @throws ConflictException when the tenant has a group of that name. */
  async create(tenantId: number, name: string): Promise<GroupView> {
    if (name.length < 1 || name.length > 128 || /^\d+$/.test(name)) {
      throw new BadRequestException('group name must be 1 to 128 characters and not only digits');
    }
    try {
      const group = await this.unitOfWork.transaction(async (manager) => {
        const created = await this.rollouts.insertGroup(manager, { tenantId, name, createdAt: this.clock.now() });
        await this.ledger.append(manager, {
          tenantId,
          type: 'group.created',
          subject: Subject.group(created.id),
          state: { id: created.id, name },
        });
        return created;
      });
      return { id: group.id, name: group.name, members: 0 };
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictException(`Group "${name}" exists`);
      throw error;
    }
  }

  /**
   * Adds macs (any accepted notation) to a group.
   * @throws BadRequestException naming the first mac that is not a hardware address.
   */
  async addMembers(tenantId: number, groupRef: string, macs: string[]): Promise<GroupView> {
    return this.changeMembers(tenantId, groupRef, macs, 'group.members-added');
  }

  /** Removes macs from a group. */
  async removeMembers(tenantId: number, groupRef: string, macs: string[]): Promise<GroupView> {
    return this.changeMembers(tenantId, groupRef, macs, 'group.members-removed');
  }

  async list(tenantId: number): Promise<GroupView[]> {
    return this.rollouts.listGroups(tenantId);
  }

  /** @throws NotFoundException for an unknown group of the tenant. */
  async require(tenantId: number, groupRef: string): Promise<DeviceGroup> {
    const group = await this.rollouts.findGroup(tenantId, groupRef);
    if (!group) throw new NotFoundException(`Group "${groupRef}" not found`);
    return group;
  }

  private async changeMembers(tenantId: number, groupRef: string, macs: string[], type: string): Promise<GroupView> {
    const canonical = macs.map((text) => {
      const mac = canonicalMac(text.trim());
      if (!mac) throw new BadRequestException(`"${text}" is not a hardware address (EUI-48 or EUI-64)`);
      return mac;
    });
    const unique = [...new Set(canonical)];
    const group = await this.require(tenantId, groupRef);
    const members = await this.unitOfWork.transaction(async (manager) => {
      if (type === 'group.members-added') await this.rollouts.addMembers(manager, group.id, unique);
      else await this.rollouts.removeMembers(manager, group.id, unique);
      await this.ledger.append(manager, {
        tenantId,
        type,
        subject: Subject.group(group.id),
        state: { id: group.id, name: group.name, macs: unique },
      });
      return this.rollouts.memberCount(group.id, manager);
    });
    return { id: group.id, name: group.name, members };
  }
}
