import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { DeploymentLog } from './deployment-log.entity.js';

/** Database access for deployment logs (docs/decisions.md §13). */
@Injectable()
export class DeploymentLogRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Keeps `log` as the one of its rollout and device, replacing an older one. */
  async replace(manager: EntityManager, log: Omit<DeploymentLog, 'id'>): Promise<void> {
    await manager.delete(DeploymentLog, { rolloutId: log.rolloutId, deviceId: log.deviceId });
    await manager.insert(DeploymentLog, log);
  }

  /** The device's logs, one per rollout. */
  ofDevice(deviceId: number): Promise<DeploymentLog[]> {
    return this.dataSource.getRepository(DeploymentLog).find({ where: { deviceId }, order: { rolloutId: 'ASC' } });
  }
}
