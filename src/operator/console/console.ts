import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { normalizePrefix } from '#src/platform/listeners/listener-plan.js';
import { componentMarker } from '#src/platform/listeners/listener-routing.js';
import { CONSOLE_PAGES } from './console-pages.js';

/** Where `npm run build` puts the built console (`vite build` of `web/`). */
export const CONSOLE_DIST = fileURLToPath(new URL('../../../web/', import.meta.url));

/**
 * Headers of the console's page. Scripts, styles and every request stay on this origin; the page
 * may not be framed (clickjacking) and sends no referrer.
 */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // The page names the current asset file names: never reuse a stale copy.
  'cache-control': 'no-cache',
} as const;

/**
 * Serves the operator console under `OPERATOR_URL` on the operator listener, beside the API:
 * its page at `{operator_url}/` and at every console path ({@link CONSOLE_PAGES}), with a
 * `<base href>` of the base URL's path so the assets and the API resolve under a path prefix
 * too; its assets at `{operator_url}/assets/<name>-<hash>.<ext>`, cached for a year as immutable
 * (their names change with their content), gzip or brotli when the browser takes it. Like the
 * OpenAPI pages, every route is declared under the operator marker, so the listener routing keeps
 * it on the operator listener. Without a build (`dist/web`), nothing is served and a warning says so.
 */
export function mountConsole(app: NestFastifyApplication, config: AppConfig, dist = CONSOLE_DIST): void {
  const indexFile = `${dist}index.html`;
  if (!existsSync(indexFile)) {
    new Logger('Console').warn(`the operator console is not built (no ${indexFile}): run npm run build`);
    return;
  }
  const fastify = app.getHttpAdapter().getInstance();
  const marker = `/${componentMarker('operator')}`;
  const base = `${normalizePrefix(config.urls.operator.pathname)}/`;
  const page = readFileSync(indexFile, 'utf8').replace('<head>', `<head>\n    <base href="${escapeAttribute(base)}">`);
  for (const path of new Set(Object.values(CONSOLE_PAGES))) {
    fastify.get(path === '/' ? marker : `${marker}${path}`, (_request, reply) =>
      reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(page),
    );
  }
  void fastify.register(fastifyStatic, {
    root: `${dist}assets`,
    prefix: `${marker}/assets/`,
    wildcard: false,
    index: false,
    decorateReply: false,
    preCompressed: true,
    immutable: true,
    maxAge: '365d',
    setHeaders: (reply) => void reply.header('x-content-type-options', 'nosniff'),
  });
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}
