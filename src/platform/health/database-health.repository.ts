import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** The one query readiness needs: a round trip to the database, whatever its driver. */
@Injectable()
export class DatabaseHealthRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Runs `SELECT 1` (valid on SQLite and PostgreSQL).
   * @throws whatever the driver throws when the database is closed or unreachable.
   */
  async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }
}
