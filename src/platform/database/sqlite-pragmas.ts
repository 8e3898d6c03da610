import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { isSqlite } from './sql.js';

/**
 * Connection settings TypeORM has no option for, applied once the data source is open (before
 * the first request). SQLite: `PRAGMA synchronous` from `SQLITE_SYNCHRONOUS`. In WAL mode
 * `NORMAL` syncs the log at checkpoints instead of at every commit: a crash of the process loses
 * nothing and the database is never corrupted, but a power loss may roll back the last commits
 * (https://www.sqlite.org/pragma.html#pragma_synchronous). Both drivers keep one connection, so
 * setting it once covers every query.
 */
@Injectable()
export class SqlitePragmas implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!isSqlite(this.dataSource.options.type)) return;
    await this.dataSource.query(`PRAGMA synchronous = ${this.config.sqliteSynchronous}`);
  }
}
