// The shell: sign-in when there is no session, else the header, the navigation and the view of the path.
import { lazy, Suspense } from 'preact/compat';
import { useEffect, useState } from 'preact/hooks';
import { endSession, getReason, getSession, onSession, type Session } from './api/session';
import { Link } from './components/link';
import { navigate, useLocation } from './router';
import { LoginView } from './views/login';
import { CriticalView } from './views/critical';
import { DataLogView } from './views/data-log';
import { DevicesView } from './views/devices';
import { DeviceView } from './views/device';
import { IncidentsView, IncidentView } from './views/incidents';
import { IndicatorAuditView } from './views/indicator-audit/findings';
import { AlarmsView } from './views/alarms';
import { BoardView } from './views/board';
import { ReliabilityView } from './views/reliability';
import { FleetView } from './views/fleet';

// Leaflet and uPlot are loaded only by the views that draw with them.
const MapView = lazy(() => import('./views/map').then((m) => ({ default: m.MapView })));

const NAV = [
  { path: '/board', label: 'Board' },
  { path: '/map', label: 'Map' },
  { path: '/incidents', label: 'Incidents' },
  { path: '/indicator-audit', label: 'Indicator audit' },
  { path: '/alarms', label: 'Alarms' },
  { path: '/reliability', label: 'Reliability' },
  { path: '/fleet', label: 'Fleet' },
  { path: '/critical', label: 'Critical faults' },
  { path: '/data-log', label: 'Data log' },
  { path: '/devices', label: 'Devices' },
];

function useSession(): [Session | null, string | null] {
  const [state, setState] = useState<[Session | null, string | null]>([getSession(), getReason()]);
  useEffect(() => onSession((s, r) => setState([s, r])), []);
  return state;
}

export function App() {
  const [session, reason] = useSession();
  const loc = useLocation();

  useEffect(() => {
    if (session && (loc.path === '/' || loc.path === '/login')) navigate('/board', { replace: true });
  }, [session, loc.path]);

  useEffect(() => {
    const name = NAV.find((n) => loc.path.startsWith(n.path))?.label ?? (loc.path.startsWith('/devices/') ? 'Device' : loc.path.startsWith('/incidents/') ? 'Incident' : 'Sign in');
    document.title = `${session ? name : 'Sign in'} · faultline`;
  }, [loc.path, session]);

  if (!session) return <LoginView reason={reason} />;

  let view;
  const device = /^\/devices\/([^/]+)$/.exec(loc.path);
  const incident = /^\/incidents\/([^/]+)$/.exec(loc.path);
  if (incident) view = <IncidentView id={decodeURIComponent(incident[1]!)} session={session} />;
  else if (device) view = <DeviceView imei={decodeURIComponent(device[1]!)} session={session} query={loc.query} />;
  else if (loc.path === '/map') view = <Suspense fallback={<p class="status-line">Loading the map…</p>}><MapView session={session} query={loc.query} /></Suspense>;
  else if (loc.path === '/board') view = <BoardView session={session} query={loc.query} />;
  else if (loc.path === '/incidents') view = <IncidentsView session={session} query={loc.query} />;
  else if (loc.path === '/indicator-audit') view = <IndicatorAuditView session={session} query={loc.query} />;
  else if (loc.path === '/alarms') view = <AlarmsView session={session} query={loc.query} />;
  else if (loc.path === '/reliability') view = <ReliabilityView session={session} query={loc.query} />;
  else if (loc.path === '/fleet') view = <FleetView session={session} query={loc.query} />;
  else if (loc.path === '/critical') view = <CriticalView session={session} query={loc.query} />;
  else if (loc.path === '/data-log') view = <DataLogView session={session} query={loc.query} />;
  else if (loc.path === '/devices') view = <DevicesView session={session} query={loc.query} />;
  else view = <p class="notice">There is no page at {loc.path}. <Link href="/board">Go to the board</Link>.</p>;

  return (
    <div class="shell">
      <a class="skip-link" href="#main">Skip to content</a>
      <header class="topbar">
        <span class="brand">faultline</span>
        <nav aria-label="Views" class="nav">
          {NAV.map((n) => <Link key={n.path} href={n.path} class="nav-link" current={loc.path === n.path || ((n.path === '/devices' || n.path === '/incidents') && loc.path.startsWith(`${n.path}/`))}>{n.label}</Link>)}
        </nav>
        <span class="who" data-testid="who">{session.email} · {session.org} · {session.role}</span>
        <button type="button" class="button" onClick={() => endSession(null)}>Log out</button>
      </header>
      <main id="main" tabIndex={-1}>{view}</main>
    </div>
  );
}
