/**
 * The components, each on its own base URL; `ipfs` and `tools` are the field's further two
 * device-facing ones, `ddi` speaks Eclipse hawkBit's Direct Device Integration API (docs/decisions.md §12),
 * `mender` the Mender device API (docs/decisions.md §13).
 */
export const COMPONENTS = ['auth', 'vc', 'bc', 'operator', 'ipfs', 'tools', 'ddi', 'mender'] as const;
export type ComponentName = (typeof COMPONENTS)[number];

/** The base-URL variable of each component. */
export const URL_VARIABLES: Readonly<Record<ComponentName, string>> = {
  auth: 'AUTH_URL',
  vc: 'VC_URL',
  bc: 'BC_URL',
  operator: 'OPERATOR_URL',
  ipfs: 'IPFS_URL',
  tools: 'TOOLS_URL',
  ddi: 'DDI_URL',
  mender: 'MENDER_URL',
};
