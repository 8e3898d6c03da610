import { useEffect, type ReactNode } from 'react';
import { Link } from 'react-router';
import { CONSOLE_PAGES } from '#src/operator/console/console-pages';
import { useSession } from '#web/session';
import { Loading } from '#web/components/feedback';
import { useTenant, withTenant } from '#web/tenant';

/** The page's heading (focusable: the console moves focus to it on navigation) and the window title. */
export function PageTitle({ title, children }: { title: string; children?: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · firmledger console`;
  }, [title]);
  return (
    <div className="page-title">
      <h1 tabIndex={-1}>{title}</h1>
      {children}
    </div>
  );
}

/** What a page that works on one tenant says when there is none yet. */
export function NoTenant() {
  const { canChange } = useSession();
  return (
    <p className="note">
      There is no tenant yet.{' '}
      {canChange ? (
        <>
          Create one under <Link to={withTenant(CONSOLE_PAGES.keys, undefined)}>Tenants &amp; keys</Link>.
        </>
      ) : (
        'An admin creates tenants.'
      )}
    </p>
  );
}

/**
 * The part of a page that works on the chosen tenant: `children(tenant)` once there is one, a
 * loading line while the tenants load, else {@link NoTenant}.
 */
export function ForTenant({ children }: { children: (tenant: string) => ReactNode }) {
  const { tenant, loading } = useTenant();
  if (tenant) return <>{children(tenant)}</>;
  return loading ? <Loading what="tenants" /> : <NoTenant />;
}
