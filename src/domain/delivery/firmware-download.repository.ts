import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { FirmwareDownload } from './firmware-download.entity.js';

/** Database access for the record of firmware downloads. */
@Injectable()
export class FirmwareDownloadRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Records one download in `manager`'s transaction. */
  insert(manager: EntityManager, download: Omit<FirmwareDownload, 'id'>): Promise<FirmwareDownload> {
    return manager.save(FirmwareDownload, manager.create(FirmwareDownload, download));
  }

  /**
   * The downloads attributed to one device of the tenant, newest first (by time, then id).
   * @param deviceId the device's id; downloads without a device (no or unknown MAC header) never match.
   */
  forDevice(tenantId: number, deviceId: number): Promise<FirmwareDownload[]> {
    return this.dataSource.getRepository(FirmwareDownload).find({
      where: { tenantId, deviceId },
      order: { requestedAt: 'DESC', id: 'DESC' },
    });
  }
}
