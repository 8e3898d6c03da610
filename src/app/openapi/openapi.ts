import { readFileSync } from 'node:fs';
import type { INestApplication } from '@nestjs/common';
import {
  DocumentBuilder,
  SwaggerModule,
  type ExampleObject,
  type OpenAPIObject,
  type OperationObject,
  type ParameterObject,
  type ResponseObject,
} from '@nestjs/swagger';
import { unstorableTextMessage } from '#src/platform/common/input-rules.js';
import { COMPONENT_MODULES } from '#src/app/app.module.js';
import type { AppConfig } from '#src/platform/config/app-config.js';
import type { ComponentName } from '#src/platform/config/components.js';
import { componentMarker } from '#src/platform/listeners/listener-routing.js';
import { SESSION_COOKIE } from '#src/operator/session-cookie.js';
import { exampleKey, SecuritySchemes } from '#src/platform/openapi/api-responses.js';
import { withNamedSchemas } from '#src/platform/openapi/named-schemas.js';
import { FieldMessageResponse } from '#src/platform/common/dto/message.dto.js';
import { FIELD_NAMING_COMPONENTS } from '#src/platform/http/http-error.filter.js';
import { DdiSecuritySchemes } from '#src/protocols/ddi/ddi.controller.js';
import { MENDER_TOKEN_SCHEME } from '#src/protocols/mender/mender.controller.js';

/** Path of the Swagger UI under a component's base URL; the JSON document is at `{base}/docs/json`. */
export const DOCS_PATH = 'docs';

interface ComponentDocs {
  title: string;
  variable: string;
  description: string;
  /** Security schemes this component's endpoints use. */
  security: 'device' | 'operator' | 'ddi' | 'mender' | 'none';
  tags: { name: string; description: string }[];
}

/** Title, description and tags of each component's document. */
const COMPONENT_DOCS: Record<ComponentName, ComponentDocs> = {
  auth: {
    title: 'firmledger authentication component',
    variable: 'AUTH_URL',
    description:
      'Device login: a device key, a Unix-epoch timestamp and an HMAC-SHA256 device signature are exchanged for a JWT ' +
      '(docs/device-interface.md "Authentication component", docs/decisions.md §1, §4).',
    security: 'none',
    tags: [{ name: 'Authentication', description: 'Device login and its rate limit.' }],
  },
  vc: {
    title: 'firmledger version controller',
    variable: 'VC_URL',
    description:
      'Devices register and read themselves, ask for their next rollout and report success; they download firmware from ' +
      'the IPFS component. Every endpoint takes the JWT from login.',
    security: 'device',
    tags: [
      { name: 'Devices', description: 'Register, delete, get and list devices of the token’s tenant.' },
      { name: 'Rollouts', description: 'The next rollout for a device, and success reports.' },
      { name: 'Reports', description: 'All devices of the tenant as JSON, XML or PDF.' },
    ],
  },
  bc: {
    title: 'firmledger blockchain lookup',
    variable: 'BC_URL',
    description:
      'Read-only lookups of the current device and firmware records the tamper-evident ledger defines ' +
      '(docs/device-interface.md "Blockchain lookup component", docs/decisions.md §7). Every endpoint takes the JWT from login.',
    security: 'device',
    tags: [{ name: 'Ledger lookups', description: 'Device and firmware records from the ledger.' }],
  },
  ipfs: {
    title: 'firmledger IPFS download server',
    variable: 'IPFS_URL',
    description:
      'Firmware binaries by their IPFS CID, in the three forms devices use: `POST /firmware/download` with `{"cid"}` (the ' +
      'device SDKs), `GET /firmware/{cid}` and the IPFS gateway path `GET /ipfs/{cid}`. Every answer with bytes carries ' +
      '`Content-Length` and `x-MD5` (never a chunked body), resumes with `Range`, and closes the connection after the body. ' +
      'Every endpoint takes the JWT from login.',
    security: 'device',
    tags: [{ name: 'Firmware download', description: 'The tenant’s firmware by CID; each download is recorded for its device.' }],
  },
  tools: {
    title: 'firmledger tools service',
    variable: 'TOOLS_URL',
    description:
      'What devices need before they speak TLS to the other components: the SHA-1 fingerprints of their certificates, ' +
      'which the ESP8266 SDK pins. No token.',
    security: 'none',
    tags: [{ name: 'Tools', description: 'TLS certificate fingerprints.' }],
  },
  ddi: {
    title: 'firmledger hawkBit DDI component',
    variable: 'DDI_URL',
    description:
      'Eclipse hawkBit’s Direct Device Integration API, as SWUpdate (suricatta), rauc-hawkbit-updater, Zephyr’s hawkBit ' +
      'subsystem and other hawkBit clients speak it: they poll the root resource of their controller id, take or cancel ' +
      'actions (an action is a rollout as one device sees it; its id is the rollout id), report feedback and download ' +
      'artifacts (docs/decisions.md §11, §12, docs/hawkbit-devices.md). Every request carries `Authorization: TargetToken ' +
      '<the device’s token>` or `Authorization: GatewayToken <a device key of the tenant>`; every POST and PUT is answered ' +
      '200 without a body.',
    security: 'ddi',
    tags: [{ name: 'DDI', description: 'The resources of one device (controller id) of a tenant.' }],
  },
  mender: {
    title: 'firmledger Mender component',
    variable: 'MENDER_URL',
    description:
      'The Mender device API, as the Mender client (3.x) speaks it with `ServerURL` set to this base URL and a device key of the ' +
      'tenant as its `TenantToken` (docs/decisions.md §13, docs/mender-devices.md): devices authenticate with their identity and ' +
      'public key (pending until an operator accepts them, unless preauthorized), send their inventory, ask for their next ' +
      'deployment (a deployment is a rollout as one device sees it; its id is the rollout id), report its status and, after a ' +
      'failure, its log, and download the artifact through a signed link.',
    security: 'mender',
    tags: [{ name: 'Mender', description: 'Device authentication, inventory and deployments.' }],
  },
  operator: {
    title: 'firmledger operator API',
    variable: 'OPERATOR_URL',
    description:
      'Tenants, device keys, device groups, firmware, rollouts and ledger verification for operators (docs/decisions.md §9). ' +
      'Every endpoint takes the operator token as a bearer token, or the console’s session cookie; changes need the admin role.',
    security: 'operator',
    tags: [
      { name: 'Tenants', description: 'Tenants and their customer keys (shown on create and rotate only).' },
      { name: 'Device keys', description: 'Device keys of a tenant, one device type each; revocable.' },
      { name: 'Devices', description: 'The devices of a tenant, filtered, with their groups and rollout history (read-only).' },
      { name: 'Groups', description: 'Device groups of a tenant and their members by mac; rollouts target groups.' },
      { name: 'Firmware', description: 'Firmware upload (publish) as a streamed binary body, and lookups.' },
      { name: 'Rollouts', description: 'Plan rollouts, move them through their lifecycle and follow their progress.' },
      { name: 'Ledger', description: 'Verify the hash-chained ledger and read its entries.' },
      { name: 'Session', description: 'Sign in to the operator console with an operator account, and sign out.' },
    ],
  },
};

/** The package version, the documents' `info.version`. */
const VERSION = (JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/**
 * Builds the OpenAPI 3 document of the components served under one base URL, from the
 * controllers of their modules ({@link COMPONENT_MODULES}) and their decorators.
 *
 * Paths are relative to the base URL, as docs/device-interface.md writes them (`{vc_url}/api/device/…`);
 * the one server is the base URL's path (`/fw`, or `/`) without scheme and host, so Swagger UI's
 * "Try it out" sends requests to the listener the page was loaded from (same origin, no CORS),
 * whatever host name or address the browser used to reach it (a bind address such as `0.0.0.0`
 * is not one a browser can call). The internal routing marker (`/__vc`) never appears.
 *
 * @param app a created (not necessarily listening) application; preview mode is enough.
 * @param config the base URLs.
 * @param components the components sharing one base URL (usually one).
 */
export function buildOpenApiDocument(app: INestApplication, config: AppConfig, components: readonly ComponentName[]): OpenAPIObject {
  const docs = components.map((component) => COMPONENT_DOCS[component]);
  const prefix = new URL(config.urls[components[0]].href).pathname.replace(/\/+$/, '');
  const builder = new DocumentBuilder()
    .setTitle(docs.map((d) => d.title).join(' + '))
    .setDescription(
      [
        ...docs.map((d) => d.description),
        `Paths are relative to the base URL (${docs.map((d) => d.variable).join(', ')}); this page and ` +
          `\`${DOCS_PATH}/json\` are served under it.`,
      ].join('\n\n'),
    )
    .setVersion(VERSION)
    .addServer(prefix || '/', 'The listener serving this document (base URL path; scheme and host of the page).');
  if (docs.some((d) => d.security === 'device')) {
    builder
      .addSecurity(SecuritySchemes.deviceToken, {
        type: 'apiKey',
        in: 'header',
        name: 'x-access-token',
        description: 'Device JWT from `POST {auth_url}/auth/login` in `X-Access-Token` (any case).',
      })
      .addSecurity(SecuritySchemes.deviceBearer, {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'The same device JWT as `Authorization: Bearer <token>`.',
      });
  }
  if (docs.some((d) => d.security === 'ddi')) {
    builder
      .addSecurity(DdiSecuritySchemes.targetToken, {
        type: 'apiKey',
        in: 'header',
        name: 'Authorization',
        description: '`TargetToken <token>`: the device’s own target token, shown once when an operator creates the device.',
      })
      .addSecurity(DdiSecuritySchemes.gatewayToken, {
        type: 'apiKey',
        in: 'header',
        name: 'Authorization',
        description: '`GatewayToken <device key>`: a device key of the tenant; a device polling with it is registered with its type.',
      });
  }
  if (docs.some((d) => d.security === 'mender')) {
    builder.addSecurity(MENDER_TOKEN_SCHEME, {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'The device token `POST /api/devices/v1/authentication/auth_requests` answered, as `Authorization: Bearer <token>`.',
    });
  }
  if (docs.some((d) => d.security === 'operator')) {
    builder
      .addSecurity(SecuritySchemes.operatorToken, {
        type: 'http',
        scheme: 'bearer',
        description: 'Operator token as `Authorization: Bearer <token>`.',
      })
      .addSecurity(SecuritySchemes.operatorSession, {
        type: 'apiKey',
        in: 'cookie',
        name: SESSION_COOKIE,
        description: 'The operator console’s session cookie, set by `POST /session` (browsers send it themselves).',
      });
  }
  for (const tag of docs.flatMap((d) => d.tags)) builder.addTag(tag.name, tag.description);

  const include = components.flatMap((component) => [...COMPONENT_MODULES[component]]);
  const extraModels = components.every((component) => FIELD_NAMING_COMPONENTS.has(component)) ? [FieldMessageResponse] : [];
  // `include: []` would mean "every module": a component without modules documents no paths.
  const document =
    include.length > 0 ? SwaggerModule.createDocument(app, builder.build(), { include, extraModels }) : { ...builder.build(), paths: {} };
  return normalize(documentErrorFields(documentParameterErrors(withNamedSchemas(document)), components), components);
}

/** The 400 of a path or query parameter that is not storable text, or of a path that is not UTF-8. */
const PARAMETER_TEXT_ERROR = {
  description: 'A path or query parameter holds a NUL or is not valid Unicode text (the message names it), or the path is not valid UTF-8.',
};

/**
 * Adds to every operation with a path or query parameter the 400 answers the validation pipe and
 * the router give any of them: text that is not valid Unicode or holds a NUL (`<name> must be
 * valid Unicode text without NUL characters`), and a path whose percent-encoding is not UTF-8
 * (`Malformed URL`). Merged into the operation's own 400 when it has one.
 */
function documentParameterErrors(document: OpenAPIObject): OpenAPIObject {
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item) as OperationObject[]) {
      const parameters = (operation.parameters ?? []).filter(
        (p): p is ParameterObject => 'in' in p && (p.in === 'path' || p.in === 'query'),
      );
      if (parameters.length === 0) continue;
      const messages = [
        unstorableTextMessage(parameters[0].name),
        ...(parameters.some((p) => p.in === 'path') ? ['Malformed URL'] : []),
      ];
      const existing = operation.responses['400'] as ResponseObject | undefined;
      const content = existing?.content?.['application/json'];
      const examples: Record<string, ExampleObject> = { ...(content?.examples as Record<string, ExampleObject> | undefined) };
      const single = content?.example as { message: string } | undefined;
      if (single !== undefined) examples[exampleKey(single.message)] = { summary: single.message, value: single };
      for (const text of messages) examples[exampleKey(text)] = { summary: text, value: { message: text } };
      operation.responses['400'] = {
        description: existing ? `${existing.description} ${PARAMETER_TEXT_ERROR.description}` : PARAMETER_TEXT_ERROR.description,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/MessageResponse' }, examples } },
      };
    }
  }
  return document;
}


/**
 * Gives every 400 answer of the document the {@link FieldMessageResponse} schema (`{"message", "field"}`):
 * for a document whose components all name the field in their 400 answers (`FIELD_NAMING_COMPONENTS`,
 * the operator API). A document shared with a device-facing component keeps `{"message"}`.
 */
function documentErrorFields(document: OpenAPIObject, components: readonly ComponentName[]): OpenAPIObject {
  if (!components.every((component) => FIELD_NAMING_COMPONENTS.has(component))) return document;
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item) as OperationObject[]) {
      const content = (operation.responses?.['400'] as ResponseObject | undefined)?.content?.['application/json'];
      if (content) content.schema = { $ref: `#/components/schemas/${FieldMessageResponse.name}` };
    }
  }
  return document;
}

/**
 * One document per component, each with only that component's routes.
 * @param app a created application (preview mode is enough: no listener, no database).
 */
export function buildOpenApiDocuments(app: INestApplication, config: AppConfig): Record<ComponentName, OpenAPIObject> {
  const components = Object.keys(COMPONENT_MODULES) as ComponentName[];
  return Object.fromEntries(components.map((c) => [c, buildOpenApiDocument(app, config, [c])])) as Record<ComponentName, OpenAPIObject>;
}

/**
 * Drops the routing marker from the paths, orders `paths` and `components.schemas` by name and
 * the top-level keys in one fixed order, so the document depends on neither module order nor
 * how it was assembled.
 */
function normalize(document: OpenAPIObject, components: readonly ComponentName[]): OpenAPIObject {
  const markers = components.map((c) => `/${componentMarker(c)}`);
  const unmark = (path: string): string => {
    const marker = markers.find((m) => path === m || path.startsWith(`${m}/`));
    return marker ? path.slice(marker.length) || '/' : path;
  };
  const { openapi, info, servers, tags, paths, components: parts, ...rest } = document;
  const schemas = parts?.schemas;
  return {
    openapi,
    info,
    servers,
    tags,
    ...rest,
    paths: Object.fromEntries(
      Object.entries(paths)
        .map(([path, item]) => [unmark(path), item] as const)
        .sort(byKey),
    ),
    components: { ...parts, ...(schemas ? { schemas: Object.fromEntries(Object.entries(schemas).sort(byKey)) } : {}) },
  };
}

/** Orders entries by key in code-unit order (locale-independent). */
function byKey([a]: readonly [string, unknown], [b]: readonly [string, unknown]): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
