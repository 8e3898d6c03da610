import { Global, Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { dataSourceOptions, type DatabaseSchema } from './data-source-options.js';
import { BackgroundWriter } from './background-writer.js';
import { SqlitePragmas } from './sqlite-pragmas.js';
import { UnitOfWork } from './unit-of-work.js';

/** The data source of `schema` (its migrations run at start), the unit of work and the background writer, for every module. */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(schema: DatabaseSchema): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: (config: AppConfig) => dataSourceOptions(config, schema),
        }),
      ],
      providers: [UnitOfWork, SqlitePragmas, BackgroundWriter],
      exports: [UnitOfWork, BackgroundWriter],
    };
  }
}
