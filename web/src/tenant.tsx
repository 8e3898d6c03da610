import { useQuery } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useSearchParams } from 'react-router';
import { answer, api } from './api/client';
import type { Tenant } from './api/types';

const REMEMBERED = 'firmledger.tenant';

/** Tenants the picker offers: the first 500 by id (the API's largest page). */
export function useTenants() {
  return useQuery({ queryKey: ['tenants', 'all'], queryFn: () => answer(api.GET('/tenants', { params: { query: { per_page: 500 } } })) });
}

/**
 * The tenant the console works on: `?tenant=` of the address (so a page can be shared), else the
 * one chosen last in this browser, else the first tenant. `undefined` while tenants load or when
 * there are none.
 */
export function useTenant(): {
  tenant: string | undefined;
  tenants: Tenant[];
  loading: boolean;
  error: unknown;
  choose: (name: string) => void;
} {
  const [params, setParams] = useSearchParams();
  const tenants = useTenants();
  const items = tenants.data?.items ?? [];
  const wanted = params.get('tenant') ?? localStorage.getItem(REMEMBERED) ?? undefined;
  const tenant = items.find((t) => t.name === wanted)?.name ?? items[0]?.name;
  const choose = useCallback(
    (name: string) => {
      localStorage.setItem(REMEMBERED, name);
      setParams(
        (current) => {
          const next = new URLSearchParams(current);
          next.set('tenant', name);
          // A page of another tenant's list means nothing here: its number, or its cursor.
          next.delete('page');
          next.delete('after');
          return next;
        },
        { replace: false },
      );
    },
    [setParams],
  );
  return { tenant, tenants: items, loading: tenants.isPending, error: tenants.error, choose };
}

/** A console path with the current tenant kept in its query (`/devices?tenant=acme`). */
export function withTenant(path: string, tenant: string | undefined, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams({ ...(tenant ? { tenant } : {}), ...extra }).toString();
  return query ? `${path}?${query}` : path;
}
