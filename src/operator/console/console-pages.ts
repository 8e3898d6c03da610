/**
 * The operator console's pages: the paths the browser shows under `{operator_url}`. The console
 * (`web/`) routes them on the client; the server answers each with the console's page, so a
 * reload or a bookmark works. No path here is an operator API path (the API keeps `/tenants/…`,
 * `/ledger/…`, `/session`, `/docs`, `/metrics`): a path added here must not be one.
 */
export const CONSOLE_PAGES = {
  overview: '/',
  signIn: '/sign-in',
  devices: '/devices',
  device: '/devices/:mac',
  keys: '/keys',
  mender: '/mender-devices',
  firmware: '/firmware',
  groups: '/groups',
  group: '/groups/:group',
  rollouts: '/rollouts',
  rollout: '/rollouts/:id',
  ledger: '/ledger',
} as const;

export type ConsolePage = keyof typeof CONSOLE_PAGES;
