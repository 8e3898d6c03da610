import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Link, NavLink, Navigate, Outlet, Route, Routes, useLocation, useNavigate } from 'react-router';
import { CONSOLE_PAGES } from '#src/operator/console/console-pages';
import { ErrorText, Loading } from './components/feedback';
import { PageTitle } from './components/page-title';
import { DevicePage } from './pages/device';
import { DevicesPage } from './pages/devices';
import { FirmwarePage } from './pages/firmware';
import { GroupPage } from './pages/group';
import { GroupsPage } from './pages/groups';
import { KeysPage } from './pages/keys';
import { LedgerPage } from './pages/ledger';
import { MenderPage } from './pages/mender';
import { OverviewPage } from './pages/overview';
import { RolloutPage } from './pages/rollout';
import { RolloutsPage } from './pages/rollouts';
import { SignInPage } from './pages/sign-in';
import { useSession } from './session';
import { useTenant, withTenant } from './tenant';

/** The console: the sign-in page, and every other page behind a session. */
export function App() {
  return (
    <Routes>
      <Route path={CONSOLE_PAGES.signIn} element={<SignInPage />} />
      <Route
        element={
          <RequireSession>
            <Layout />
          </RequireSession>
        }
      >
        <Route path={CONSOLE_PAGES.overview} element={<OverviewPage />} />
        <Route path={CONSOLE_PAGES.devices} element={<DevicesPage />} />
        <Route path={CONSOLE_PAGES.device} element={<DevicePage />} />
        <Route path={CONSOLE_PAGES.keys} element={<KeysPage />} />
        <Route path={CONSOLE_PAGES.mender} element={<MenderPage />} />
        <Route path={CONSOLE_PAGES.firmware} element={<FirmwarePage />} />
        <Route path={CONSOLE_PAGES.groups} element={<GroupsPage />} />
        <Route path={CONSOLE_PAGES.group} element={<GroupPage />} />
        <Route path={CONSOLE_PAGES.rollouts} element={<RolloutsPage />} />
        <Route path={CONSOLE_PAGES.rollout} element={<RolloutPage />} />
        <Route path={CONSOLE_PAGES.ledger} element={<LedgerPage />} />
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}

/** Sends a signed-out visitor to the sign-in page, and back to where they were afterwards. */
function RequireSession({ children }: { children: ReactNode }) {
  const { operator } = useSession();
  const location = useLocation();
  if (operator === undefined) return <Loading what="your session" />;
  if (operator === null) {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={`${CONSOLE_PAGES.signIn}?next=${encodeURIComponent(next)}`} replace />;
  }
  return children;
}

const NAV: { path: string; label: string }[] = [
  { path: CONSOLE_PAGES.overview, label: 'Overview' },
  { path: CONSOLE_PAGES.devices, label: 'Devices' },
  { path: CONSOLE_PAGES.mender, label: 'Mender devices' },
  { path: CONSOLE_PAGES.keys, label: 'Tenants & keys' },
  { path: CONSOLE_PAGES.firmware, label: 'Firmware' },
  { path: CONSOLE_PAGES.groups, label: 'Groups' },
  { path: CONSOLE_PAGES.rollouts, label: 'Rollouts' },
  { path: CONSOLE_PAGES.ledger, label: 'Ledger' },
];

/** Header (tenant, operator, sign-out), navigation and the page. */
function Layout() {
  const { operator, signOut } = useSession();
  const { tenant, tenants, choose, error } = useTenant();
  const navigate = useNavigate();
  const [signOutError, setSignOutError] = useState<unknown>();
  const location = useLocation();
  const main = useRef<HTMLElement>(null);

  // Another page without a page load: move focus to its heading, so screen readers read it and
  // the next Tab starts from the page (a page load leaves focus at the start of the document).
  const loaded = useRef(false);
  useEffect(() => {
    if (loaded.current) main.current?.querySelector<HTMLElement>('h1')?.focus();
    loaded.current = true;
  }, [location.pathname]);

  const leave = async () => {
    try {
      await signOut();
      void navigate(CONSOLE_PAGES.signIn);
    } catch (failure) {
      setSignOutError(failure);
    }
  };

  return (
    <>
      <a
        className="skip"
        href="#main"
        onClick={(event) => {
          // The page has a <base href>: a bare #main would resolve against it and leave the page.
          event.preventDefault();
          main.current?.focus();
        }}
      >
        Skip to the page
      </a>
      <header className="top">
        <Link to={withTenant(CONSOLE_PAGES.overview, tenant)} className="brand">
          firmledger
        </Link>
        <div className="tenant-picker">
          <label htmlFor="tenant-picker">Tenant</label>
          <select id="tenant-picker" value={tenant ?? ''} onChange={(e) => choose(e.target.value)} disabled={tenants.length === 0}>
            {tenants.length === 0 ? <option value="">none yet</option> : null}
            {tenants.map((t) => (
              <option key={t.id} value={t.name}>
                {t.name}
              </option>
            ))}
          </select>
        </div>
        <div className="who">
          <span>
            {operator?.username} <span className="role">{operator?.role}</span>
          </span>
          <button type="button" className="secondary" onClick={() => void leave()}>
            Sign out
          </button>
        </div>
      </header>
      <ErrorText error={signOutError ?? error} />
      <nav className="main-nav" aria-label="Pages">
        <ul>
          {NAV.map((item) => (
            <li key={item.path}>
              <NavLink to={withTenant(item.path, tenant)} end={item.path === CONSOLE_PAGES.overview}>
                {item.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" ref={main} tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}

function NotFound() {
  return (
    <>
      <PageTitle title="Page not found" />
      <p>
        There is no such page in the console. <Link to={CONSOLE_PAGES.overview}>Go to the overview</Link>.
      </p>
    </>
  );
}
