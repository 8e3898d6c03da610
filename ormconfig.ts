/**
 * Data source for the TypeORM CLI (`npm run migration:show`, `migration:run`, `migration:revert`),
 * built from the same validated configuration as the server. The server itself runs pending
 * migrations at start; this file is for operators who want to run them by hand.
 */
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig, prepareDataDir } from '#src/platform/config/app-config.js';
import { dataSourceOptions } from '#src/platform/database/data-source-options.js';
import { SCHEMA } from '#src/app/schema.js';

export default new DataSource({ ...dataSourceOptions(prepareDataDir(loadConfig(process.env)), SCHEMA), migrationsRun: false });
