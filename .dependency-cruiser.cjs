// The architecture, as rules `npm run lint` checks (docs/architecture.md):
//   src/platform  <  src/domain  <  src/adapters  <  src/protocols/*  <  src/operator  <  src/app  <  src/cli
// Imports point down only; a device protocol never imports another; the domain speaks no HTTP (no
// Fastify reply, no Swagger decorator: what several HTTP adapters share lives in src/adapters);
// inside a layer, folders are
// ranked below so that no two folders import each other (no folder cycles); no file cycles at all.
// Specs (*.spec.ts, test/) may reach up: they assemble what they test.

/** Folders of each layer, bottom first: a folder may import only folders before it in its list. */
const RANKS = {
  platform: ['common', 'crypto', 'config', 'logging', 'http', 'openapi', 'database', 'redis', 'listeners', 'metrics', 'health'],
  domain: ['ledger', 'tenant', 'access', 'firmware', 'tuf', 'device', 'identity', 'group', 'device-import', 'rollout', 'delivery'],
  'protocols/asvin': ['auth', 'device', 'rollout', 'report', 'chain', 'ipfs', 'tools'],
};

const LAYERS = ['platform', 'domain', 'adapters', 'protocols', 'operator', 'app', 'cli'];

const notSpec = '(?<!\\.spec)\\.tsx?$';

/** One rule per layer: nothing below imports it. */
const layerRules = LAYERS.slice(0, -1).map((layer, index) => ({
  name: `${layer}-imports-down-only`,
  comment: `src/${layer} may not import ${LAYERS.slice(index + 1).join(', ')} (docs/architecture.md)`,
  severity: 'error',
  from: { path: `^src/${layer}/`, pathNot: `\\.spec\\.tsx?$` },
  to: { path: `^src/(${LAYERS.slice(index + 1).join('|')})/` },
}));

/** One rule per ranked folder: it imports no folder ranked above it in its layer. */
const rankRules = Object.entries(RANKS).flatMap(([layer, folders]) =>
  folders.slice(0, -1).map((folder, index) => ({
    name: `${layer.replace('/', '-')}-${folder}-below-${folders.slice(index + 1).join('-')}`,
    comment: `src/${layer}/${folder} may not import src/${layer}/{${folders.slice(index + 1).join(',')}}: folders of a layer import down their rank`,
    severity: 'error',
    from: { path: `^src/${layer}/${folder}/`, pathNot: `\\.spec\\.tsx?$` },
    to: { path: `^src/${layer}/(${folders.slice(index + 1).join('|')})/` },
  })),
);

module.exports = {
  forbidden: [
    ...layerRules,
    ...rankRules,
    {
      name: 'protocols-are-apart',
      comment: 'a device protocol is a thin adapter over the domain: it never imports another protocol',
      severity: 'error',
      from: { path: '^src/protocols/([^/]+)/', pathNot: '\\.spec\\.tsx?$' },
      to: { path: '^src/protocols/', pathNot: '^src/protocols/$1/' },
    },
    {
      name: 'folders-are-ranked',
      comment: 'every folder of a ranked layer is listed in .dependency-cruiser.cjs, so its imports are checked',
      severity: 'error',
      from: { path: '^src/(platform|domain|protocols/asvin)/' },
      to: {
        path: '^src/(platform|domain|protocols/asvin)/',
        pathNot: Object.entries(RANKS).map(([layer, folders]) => `^src/${layer}/(${folders.join('|')})/`),
      },
    },
    {
      name: 'domain-speaks-no-http',
      comment:
        'the domain knows no HTTP framework: Fastify replies and Swagger decorators that several adapters share live in src/adapters (docs/architecture.md)',
      severity: 'error',
      from: { path: '^src/domain/', pathNot: '\\.spec\\.tsx?$' },
      to: { path: 'node_modules/(fastify|@fastify/[^/]+|@nestjs/swagger|@nestjs/platform-fastify)/' },
    },
    {
      name: 'policy-is-pure',
      comment: 'the rollout policy (shared with the console) imports nothing but itself, the version order and croner (cron expressions)',
      severity: 'error',
      from: { path: '^src/domain/rollout/policy/', pathNot: '\\.spec\\.tsx?$' },
      to: { pathNot: ['^src/domain/rollout/policy/', '^src/platform/common/version-order\\.ts$', 'node_modules/croner/'] },
    },
    {
      name: 'console-imports-no-server',
      comment: 'the console (web/) uses the generated API types; of the server it imports only the pure rollout policy and its page list',
      severity: 'error',
      from: { path: '^web/src/' },
      to: {
        path: '^src/',
        pathNot: [
          '^src/domain/rollout/policy/',
          '^src/platform/common/version-order\\.ts$',
          '^src/operator/console/(console-pages|rollout-progress)\\.ts$',
        ],
      },
    },
    {
      name: 'no-circular',
      comment: 'no file imports itself through others',
      severity: 'error',
      from: { path: notSpec },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // node_modules is not followed but kept as the target of imports, so rules can name packages.
    exclude: { path: '^dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.tsx', '.js'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
