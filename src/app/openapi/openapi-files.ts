import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from '#src/app/app.module.js';
import { loadConfig } from '#src/platform/config/app-config.js';
import { buildOpenApiDocuments } from './openapi.js';

/** The committed documents' directory, `openapi/` at the project root (this file runs from `dist/src/app/openapi/`). */
export const OPENAPI_DIR = new URL('../../../../openapi/', import.meta.url);

/**
 * Renders the committed documents from the code: one `<component>.json` per component, for the
 * default configuration (the environment is not read), as 2-space JSON with a trailing newline.
 * The application is created in preview mode: no listener, no database, no data directory.
 * @returns file name → file text, in component order.
 */
export async function renderOpenApiFiles(): Promise<Map<string, string>> {
  const config = loadConfig({});
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), new FastifyAdapter(), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  try {
    const documents = buildOpenApiDocuments(app, config);
    return new Map(Object.entries(documents).map(([component, document]) => [`${component}.json`, `${JSON.stringify(document, null, 2)}\n`]));
  } finally {
    await app.close();
  }
}

/**
 * Writes {@link renderOpenApiFiles} into {@link OPENAPI_DIR} and removes `.json` files there that
 * no component produces any more (`npm run openapi`).
 * @returns the paths written, relative to the project root.
 */
export async function writeOpenApiFiles(): Promise<string[]> {
  const files = await renderOpenApiFiles();
  const dir = fileURLToPath(OPENAPI_DIR);
  mkdirSync(dir, { recursive: true });
  for (const stale of readdirSync(dir).filter((name) => name.endsWith('.json') && !files.has(name))) {
    rmSync(new URL(stale, OPENAPI_DIR));
  }
  for (const [name, text] of files) writeFileSync(new URL(name, OPENAPI_DIR), text);
  return [...files.keys()].map((name) => `openapi/${name}`);
}
