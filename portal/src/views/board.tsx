// The board (issue 32 point 1; docs/decisions.md#the-board): the operators' landing view. Active incidents
// with their faulted sections, then the unacknowledged alarms (active, or cleared and still unacknowledged),
// in the server's order (priority, then newest first); below, the alarms acknowledged and still active, and
// the shelved alarm points. Live: polled with ETags (board-poll.ts). The tab title counts what waits for an
// operator; an optional sound marks a new critical item.
import { useEffect, useRef, useState } from 'preact/hooks';
import { apiPost, type ApiError } from '../api/client';
import type { Board, BoardAlarm, BoardIncident, Priority, Shelf } from '../api/board';
import type { Session } from '../api/session';
import { playAlert, setSoundWanted, soundWanted } from '../board-sound';
import { Link } from '../components/link';
import { EmptyState, ErrorState, StatusLine } from '../components/states';
import { href, navigate } from '../router';
import { CLOCK_NAMES, isoToSecond } from '../time';
import { POLL_MS, useBoard } from './board-poll';
import './board.css';

const CLASSES = [['', 'All classes'], ['operations', 'Operations'], ['maintenance', 'Maintenance']] as const;
const SHELVE_CHOICES = [[60, '1 hour'], [8 * 60, '8 hours'], [24 * 60, '24 hours'], [7 * 24 * 60, '7 days']] as const;
const STATE_TEXT: Record<BoardAlarm['state'], string> = {
  'unacknowledged-active': 'Active, not acknowledged', 'acknowledged-active': 'Acknowledged, still active',
  'unacknowledged-cleared': 'Cleared, not acknowledged', normal: 'Normal', shelved: 'Shelved',
};
const STATUS_TEXT: Record<BoardIncident['status'], string> = { open: 'Open: not yet located', located: 'Located', restored: 'Restored, awaiting close' };

const when = isoToSecond;
const feederName = (id: string | null, name: string | null) => name ?? id ?? 'No feeder';

function PriorityBadge({ priority }: { priority: Priority }) {
  return <span class={`priority priority-${priority}`} data-priority={priority}>{priority}</span>;
}

type Act = (path: string, body: unknown) => Promise<void>;

function IncidentRow({ i, zone }: { i: BoardIncident; zone: string }) {
  return (
    <li class={`board-item prio-${i.priority}`} data-testid="board-item" data-type="incident" data-id={i.id} data-priority={i.priority}>
      <PriorityBadge priority={i.priority} />
      <div class="board-main">
        <strong><Link href={`/incidents/${i.id}`}>Incident {i.id}</Link> · {i.kind} on {feederName(i.powerLineId, i.powerLineName)}</strong>
        <span class="muted">{STATUS_TEXT[i.status]} · opened {when(i.openedAt, zone)} ({CLOCK_NAMES.service}) · first trip {when(i.firstTripAt, zone)} ({CLOCK_NAMES.device})</span>
        {i.sections.length > 0
          ? <span>Faulted section{i.sections.length > 1 ? 's' : ''}: {i.sections.map((s) => `${s.label} (phase ${s.phase}, below ${s.from.name ?? s.from.imei}${s.to.length ? `, above ${s.to.map((t) => t.name ?? t.imei).join(', ')}` : ', to the end of the line'})`).join('; ')}</span>
          : <span class="muted">Section not located yet.</span>}
      </div>
      <div class="board-actions"><Link href={href('/map', { incident: i.id })}>Show on map</Link></div>
    </li>
  );
}

/** The choices up to the alarm's limit (a chattering operations alarm: a shift by default), or the limit itself. */
function shelveChoices(max: number | null): (readonly [number, string])[] {
  const within = SHELVE_CHOICES.filter(([m]) => max === null || m <= max);
  return within.length > 0 ? within : [[max!, `${max} minutes`]];
}

function ShelveControl({ a, act }: { a: BoardAlarm; act: Act }) {
  const choices = shelveChoices(a.shelveMaxMinutes);
  const [minutes, setMinutes] = useState(String(choices[0]![0]));
  return (
    <span class="shelve">
      <select aria-label={`Shelve for how long (alarm ${a.id})`} value={minutes} onChange={(e) => setMinutes(e.currentTarget.value)}>
        {choices.map(([m, l]) => <option key={m} value={m}>{l}</option>)}
      </select>
      <button type="button" class="button" onClick={() => void act(`/api/alarms/${a.id}/shelve`, { minutes: Number(minutes) })}>Shelve</button>
    </span>
  );
}

/** A chattering alarm (docs/decisions.md#hot-spots-and-chattering-alarms): one row, its episodes, first and last raise. */
function Chatter({ a, zone }: { a: BoardAlarm; zone: string }) {
  if (a.episodes < 2) return null;
  return (
    <span class="chatter" data-testid="alarm-chatter" data-episodes={a.episodes}>
      Chattering: raised {a.episodes} times, first {when(a.firstEpisodeAt ?? a.raisedAt, zone)}, last {when(a.lastEpisodeAt ?? a.lastRaisedAt, zone)}
      {' '}({a.firstEpisodeAt ? CLOCK_NAMES.device : CLOCK_NAMES.service})
    </span>
  );
}

function AlarmRow({ a, zone, act }: { a: BoardAlarm; zone: string; act: Act }) {
  return (
    <li class={`board-item prio-${a.priority}`} data-testid="board-item" data-type="alarm" data-id={a.id} data-priority={a.priority} data-state={a.state} data-class={a.class}
      data-episodes={a.episodes}>
      <PriorityBadge priority={a.priority} />
      <div class="board-main">
        <strong>{a.label ?? a.kind} · <Link href={`/devices/${encodeURIComponent(a.IMEINumber)}`}>{a.Real_Name ?? a.IMEINumber}</Link> on {feederName(a.powerLineId, a.powerLineName)}</strong>
        {a.summary && <span data-testid="alarm-summary">{a.summary}</span>}
        <Chatter a={a} zone={zone} />
        <span class="muted"><span class={`alarm-class class-${a.class}`}>{a.class}</span> · <span data-testid="alarm-state">{STATE_TEXT[a.state]}</span> · raised {when(a.raisedAt, zone)}
          {a.clearedAt && <> · cleared {when(a.clearedAt, zone)}</>}{a.acknowledgedAt && <> · acknowledged {when(a.acknowledgedAt, zone)} by {a.acknowledgedBy ?? 'unknown'}</>} ({CLOCK_NAMES.service})</span>
      </div>
      <div class="board-actions">
        {a.state !== 'acknowledged-active' && <button type="button" class="button" aria-label={`Acknowledge alarm ${a.id}`} onClick={() => void act(`/api/alarms/${a.id}/acknowledge`, {})}>Acknowledge</button>}
        {a.shelvable && <ShelveControl a={a} act={act} />}
      </div>
    </li>
  );
}

/** One button per feeder with unacknowledged alarms on the board. */
function FeederButtons({ alarms, cls, act }: { alarms: BoardAlarm[]; cls: string; act: Act }) {
  const feeders = new Map<string, { name: string; n: number }>();
  for (const a of alarms) {
    if (a.powerLineId === null) continue;
    const f = feeders.get(a.powerLineId) ?? { name: feederName(a.powerLineId, a.powerLineName), n: 0 };
    f.n += 1;
    feeders.set(a.powerLineId, f);
  }
  if (feeders.size === 0) return null;
  return (
    <div class="feeder-acks" role="group" aria-label="Acknowledge a whole feeder">
      {[...feeders].map(([id, f]) => (
        <button key={id} type="button" class="button" data-feeder={id}
          onClick={() => void act(`/api/board/feeders/${encodeURIComponent(id)}/acknowledge`, cls ? { class: cls } : {})}>
          Acknowledge all on {f.name} ({f.n})
        </button>
      ))}
    </div>
  );
}

function ShelvedList({ shelved, zone, act }: { shelved: Shelf[]; zone: string; act: Act }) {
  if (shelved.length === 0) return <p class="muted small">Nothing is shelved.</p>;
  return (
    <ul class="board-list" data-testid="shelved">
      {shelved.map((s) => (
        <li key={`${s.IMEINumber}:${s.kind}`} class="board-item prio-low" data-testid="shelved-item" data-imei={s.IMEINumber} data-kind={s.kind}>
          <div class="board-main">
            <strong>{s.label} · {s.Real_Name ?? s.IMEINumber}</strong>
            <span class="muted">shelved by {s.shelvedBy} until {when(s.until, zone)}; it comes back on the board then</span>
          </div>
          <div class="board-actions">{s.alarmId !== null && <button type="button" class="button" onClick={() => void act(`/api/alarms/${s.alarmId}/unshelve`, {})}>Unshelve</button>}</div>
        </li>
      ))}
    </ul>
  );
}

/** The tab title's count and the sound for a critical item not on the previous board. */
function useAnnouncements(board: Board | null, sound: boolean): number {
  const seen = useRef<Set<string> | null>(null);
  const [played, setPlayed] = useState(0);
  useEffect(() => {
    if (!board) return;
    const waiting = board.counts.incidents + board.counts.unacknowledged;
    document.title = `(${waiting}) Board · faultline`;
    const critical = new Set(board.items.filter((i) => i.priority === 'critical').map((i) => `${i.type}:${i.id}`));
    const fresh = seen.current !== null && [...critical].some((k) => !seen.current!.has(k));
    seen.current = critical;
    if (fresh && sound) {
      playAlert();
      setPlayed((n) => n + 1);
    }
  }, [board, sound]);
  return played;
}

export function BoardView({ session, query }: { session: Session; query: URLSearchParams }) {
  const cls = query.get('class') ?? '';
  const res = useBoard(cls);
  const [sound, setSound] = useState(soundWanted);
  const [actError, setActError] = useState<ApiError | null>(null);
  const played = useAnnouncements(res.board, sound);
  const zone = session.timeZone;
  const act: Act = async (path, body) => {
    try {
      await apiPost(path, body);
      setActError(null);
    } catch (err) {
      setActError(err as ApiError);
    }
    res.reload();
  };
  const b = res.board;
  const alarms = (b?.items ?? []).filter((i): i is BoardAlarm => i.type === 'alarm');
  return (
    <section class="view board" aria-labelledby="board-title">
      <div class="view-head">
        <h1 id="board-title">Board</h1>
        <StatusLine loading={res.loading} updatedAt={res.updatedAt} timeZone={zone} extra={`live, checks every ${POLL_MS / 1000} s`} />
      </div>
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
        <label>Alarm class
          <select name="class" value={cls} onChange={(e) => navigate(href('/board', { class: e.currentTarget.value }))}>
            {CLASSES.map(([v, l]) => <option key={v} value={v}>{l}</option>)}
          </select>
        </label>
        <label class="checkbox">
          <input type="checkbox" checked={sound} data-testid="board-sound" data-played={played}
            onChange={(e) => { const on = e.currentTarget.checked; setSoundWanted(on); setSound(on); }} />
          Sound for a new critical item
        </label>
      </form>
      {actError && <ErrorState error={actError} />}
      {res.error && <ErrorState error={res.error} onRetry={res.reload} />}
      {b && (
        <>
          <p class="board-counts" data-testid="board-counts">
            {b.counts.incidents} active incident{b.counts.incidents === 1 ? '' : 's'} · {b.counts.unacknowledged} unacknowledged alarm{b.counts.unacknowledged === 1 ? '' : 's'} · {b.counts.critical} critical · {b.counts.shelved} shelved
            {b.truncated && ' · over 1,000 alarms: the newest 1,000 are shown'}
          </p>
          <h2>Needs attention</h2>
          <FeederButtons alarms={alarms} cls={cls} act={act} />
          {b.items.length === 0
            ? <EmptyState title="Nothing waits for an operator.">No active incident and no unacknowledged alarm{cls ? ` of class ${cls}` : ''}.</EmptyState>
            : <ul class="board-list" data-testid="board-items">{b.items.map((i) => (i.type === 'incident' ? <IncidentRow key={`i${i.id}`} i={i} zone={zone} /> : <AlarmRow key={`a${i.id}`} a={i} zone={zone} act={act} />))}</ul>}
          <h2>Acknowledged, still active</h2>
          {b.acknowledged.length === 0
            ? <p class="muted small">None: an acknowledged alarm stays here until its condition clears.</p>
            : <ul class="board-list" data-testid="board-acknowledged">{b.acknowledged.map((a) => <AlarmRow key={`a${a.id}`} a={a} zone={zone} act={act} />)}</ul>}
          <h2>Shelved</h2>
          <ShelvedList shelved={b.shelved} zone={zone} act={act} />
        </>
      )}
    </section>
  );
}
