import { useQuery } from '@tanstack/react-query';
import { answer, api } from './client';
import type { RolloutStatus } from './types';

/** How often live views ask again, milliseconds. */
export const REFRESH = { rollout: 2_000, rollouts: 5_000, fleet: 15_000 } as const;

/** The tenant's firmware and groups by id (first 500 of each): rollouts name them. */
export function useNames(tenant: string | undefined) {
  const firmware = useQuery({
    queryKey: ['firmware', tenant, 'all'],
    queryFn: () => answer(api.GET('/tenants/{tenant}/firmware', { params: { path: { tenant: tenant! }, query: { per_page: 500 } } })),
    enabled: tenant !== undefined,
  });
  const groups = useQuery({
    queryKey: ['groups', tenant, 'all'],
    queryFn: () => answer(api.GET('/tenants/{tenant}/groups', { params: { path: { tenant: tenant! }, query: { per_page: 500 } } })),
    enabled: tenant !== undefined,
  });
  const firmwareById = new Map((firmware.data?.items ?? []).map((f) => [f.id, f]));
  const groupById = new Map((groups.data?.items ?? []).map((g) => [g.id, g]));
  return {
    firmware: firmware.data?.items ?? [],
    groups: groups.data?.items ?? [],
    firmwareName: (id: number) => {
      const f = firmwareById.get(id);
      return f ? `${f.version} (${f.device_type})` : `firmware ${id}`;
    },
    groupName: (id: number) => groupById.get(id)?.name ?? `group ${id}`,
    error: firmware.error ?? groups.error,
  };
}

/** One page of the tenant's rollouts (of one status, if given), refreshed while shown. */
export function useRollouts(tenant: string | undefined, status: RolloutStatus | undefined, page = 1, perPage = 50) {
  return useQuery({
    queryKey: ['rollouts', tenant, status, page, perPage],
    queryFn: () =>
      answer(api.GET('/tenants/{tenant}/rollouts', { params: { path: { tenant: tenant! }, query: { status, page, per_page: perPage } } })),
    enabled: tenant !== undefined,
    refetchInterval: REFRESH.rollouts,
  });
}

/** The newest ledger entry (its sequence number and hash: the head) and how many entries there are. */
export function useLedgerHead() {
  return useQuery({
    queryKey: ['ledger', 'head'],
    queryFn: () => answer(api.GET('/ledger/entries', { params: { query: { order: 'desc', per_page: 1 } } })),
    refetchInterval: REFRESH.fleet,
  });
}
