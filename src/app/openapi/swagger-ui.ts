import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AppConfig } from '#src/platform/config/app-config.js';
import type { ComponentName } from '#src/platform/config/components.js';
import { planListeners } from '#src/platform/listeners/listener-plan.js';
import { componentMarker } from '#src/platform/listeners/listener-routing.js';
import { buildOpenApiDocument, DOCS_PATH } from './openapi.js';

/**
 * Serves Swagger UI at `{base}/docs` and the JSON document at `{base}/docs/json` under every
 * component's base URL. Every route, the UI's assets included, is declared under the
 * component's marker, so the listener routing moves it to the base URL and keeps it on its
 * listener like every other route (docs/decisions.md §2). Components with the very same base URL
 * share one document. Call after {@link ListenerRouting.install} and before `listen`.
 *
 * The UI is served here rather than by `SwaggerModule.setup`: its assets route is a wildcard
 * whose handler matches the request against the route's declared URL, which is still the
 * marker path, so every asset would answer 404 behind a rewritten prefix. Here each asset is
 * its own route (`@fastify/static` without wildcard), and the page loads the document from
 * `docs/json`, so relative `servers` resolve against the listener.
 */
export function mountOpenApi(app: NestFastifyApplication, config: AppConfig): void {
  const fastify = app.getHttpAdapter().getInstance();
  for (const listener of planListeners(config.urls, config.certificates)) {
    const byPrefix = new Map<string, ComponentName[]>();
    for (const mount of listener.mounts) byPrefix.set(mount.prefix, [...(byPrefix.get(mount.prefix) ?? []), mount.component]);
    for (const components of byPrefix.values()) {
      const built = buildOpenApiDocument(app, config, components);
      const document = JSON.stringify(built);
      const title = built.info.title;
      const docs = `/${componentMarker(components[0])}/${DOCS_PATH}`;
      // `{base}/docs` and `{base}/docs/` (the router ignores the trailing slash) need different relative asset URLs.
      fastify.get(docs, (request, reply) =>
        reply.type('text/html; charset=utf-8').send(swaggerUiPage(title, request.url.split('?')[0].endsWith('/') ? './' : `./${DOCS_PATH}/`)),
      );
      fastify.get(`${docs}/json`, (_request, reply) => reply.type('application/json; charset=utf-8').send(document));
      fastify.get(`${docs}/${SWAGGER_UI_INIT}`, (_request, reply) => reply.type('text/javascript; charset=utf-8').send(SWAGGER_UI_INIT_JS));
      void fastify.register(fastifyStatic, {
        root: SWAGGER_UI_DIST,
        prefix: `${docs}/`,
        wildcard: false,
        index: false,
        decorateReply: false,
        globIgnore: SWAGGER_UI_IGNORED,
        maxAge: '1d',
      });
    }
  }
}

/** Files of swagger-ui-dist the page loads; nothing else of the directory is served. */
const SWAGGER_UI_ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png'];
const SWAGGER_UI_INIT = 'swagger-ui-init.js';
/** swagger-ui-dist, resolved from @nestjs/swagger (whose dependency it is). */
const SWAGGER_UI_DIST = dirname(createRequire(createRequire(import.meta.url).resolve('@nestjs/swagger')).resolve('swagger-ui-dist/package.json'));
const SWAGGER_UI_IGNORED = readdirSync(SWAGGER_UI_DIST).filter((file) => !SWAGGER_UI_ASSETS.includes(file));

/** Starts Swagger UI on the document beside the script (`docs/json`); no external validator is called. */
const SWAGGER_UI_INIT_JS = `(function () {
  var documentUrl = new URL('json', document.currentScript.src).href;
  window.addEventListener('load', function () {
    window.ui = SwaggerUIBundle({ url: documentUrl, dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null });
  });
})();
`;

/**
 * The Swagger UI page.
 * @param title page title (plain text).
 * @param assets relative URL of the docs directory as seen from the page (`./` or `./docs/`).
 */
function swaggerUiPage(title: string, assets: string): string {
  const text = title.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${text}</title>
  <link rel="stylesheet" href="${assets}swagger-ui.css">
  <link rel="icon" type="image/png" href="${assets}favicon-32x32.png" sizes="32x32">
  <link rel="icon" type="image/png" href="${assets}favicon-16x16.png" sizes="16x16">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${assets}swagger-ui-bundle.js"></script>
  <script src="${assets}${SWAGGER_UI_INIT}"></script>
</body>
</html>
`;
}
