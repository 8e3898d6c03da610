import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from '#src/config/app-config.js';
import { APP_CONFIG } from '#src/config/config.module.js';
import { dataSourceOptions } from './data-source-options.js';
import { SqlitePragmas } from './sqlite-pragmas.js';
import { UnitOfWork } from './unit-of-work.js';

/** The data source (migrations run at start) and the unit of work, for every module. */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => dataSourceOptions(config),
    }),
  ],
  providers: [UnitOfWork, SqlitePragmas],
  exports: [UnitOfWork],
})
export class DatabaseModule {}
