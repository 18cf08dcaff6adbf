// The `alarms` component of `faultline start`: the router (woken by each raise and clear) and the communication-lost
// clock (on a tick), and the alarm outbox worker (the shared outbox loop) sending on e-mail, SMS and webhooks.
import type pg from 'pg';
import type { AlarmSettings } from '../config/settings.js';
import { startWakeups } from '../db/wakeups.js';
import { startOutboxWorker, type OutboxWorker } from '../outbox/worker.js';
import type { Keyring } from '../secrets/keyring.js';
import { createMailer } from './channels/email.js';
import { alarmHttpCa } from './channels/http-trust.js';
import { loadSmsTemplate } from './channels/sms.js';
import { scanCommunicationLost } from './clock.js';
import { alarmFailure, deliverAlarm, type Channels } from './deliver.js';
import { alarmMetrics as m } from './metrics.js';
import { alarmOutbox, type AlarmOutboxRow } from './outbox.js';
import type { FleetSummaryOf } from './fleet-digest.js';
import { routeAlarms } from './router.js';
import { readRecipients, type StoredRecipient } from './store.js';

export interface AlarmWorkerOptions {
  pool: pg.Pool;
  settings: AlarmSettings;
  /** OFFLINE_AFTER_HOURS: the ceiling of the communication-lost clock. */
  offlineAfterHours: number;
  /** SILENCE_LAG_BOUND_MINUTES in seconds (domain/checkin-clock.ts silenceAsOf); absent: judged at now. */
  silenceLagBoundS?: number;
  keyring: Keyring | null;
  /** Router and clock period. */
  tickMs?: number;
  /** Outbox poll when idle. */
  pollMs?: number;
  backoff?: { initialMs?: number; maxMs?: number };
  now?: () => number;
  /** The fleet digest's counts (alarms/fleet-digest.ts); without it no fleet digest is sent. */
  fleetSummary?: FleetSummaryOf;
}

export interface AlarmWorker {
  /** One router-and-clock round (tests drive it with their own clock). */
  tick(): Promise<void>;
  /** One claim-and-send round of the outbox. */
  sendOnce(): Promise<number>;
  stop(): Promise<void>;
}

export function startAlarmWorker(o: AlarmWorkerOptions, { loop = true } = {}): AlarmWorker {
  const now = o.now ?? Date.now;
  const mailer = o.settings.smtpUrl ? createMailer({ smtpUrl: o.settings.smtpUrl, from: o.settings.smtpFrom, caFile: o.settings.smtpCaFile }) : null;
  const channels: Channels = { settings: o.settings, keyring: o.keyring, mailer, sms: loadSmsTemplate(o.settings.smsTemplateFile), httpCa: alarmHttpCa(o.settings.httpCaFile), nowMs: now };
  const recipients = new Map<string, { at: number; r: StoredRecipient | null }>();
  const recipient = async (id: string): Promise<StoredRecipient | null> => {
    const hit = recipients.get(id);
    if (hit && Date.now() - hit.at < 10_000) return hit.r;
    const [r] = await readRecipients(o.pool, undefined, id);
    recipients.set(id, { at: Date.now(), r: r ?? null });
    return r ?? null;
  };
  const outbox: OutboxWorker = startOutboxWorker<AlarmOutboxRow>({
    name: 'alarms', label: 'alarm', pool: o.pool, table: alarmOutbox, pollMs: o.pollMs ?? 250, backoff: o.backoff, now,
    async send(row) {
      const r = await recipient(row.recipient_id);
      if (!r) throw Object.assign(new Error('the recipient no longer exists'), { code: 'NO_RECIPIENT' });
      await deliverAlarm(row, r, channels);
    },
    failure: alarmFailure,
    maxAgeMs: () => o.settings.maxAgeHours * 3_600_000,
    onDelivered(row) {
      m.sent.inc({ kind: row.kind });
      m.latencySeconds.observe(Math.max(0, (Date.now() - row.created_at.getTime()) / 1000));
    },
    onFailed(_row, f, dead) {
      m.failed.inc({ code: f.code });
      if (dead) m.dead.inc();
    },
    onPending: (n) => m.pending.set(n),
    describe: (row) => ({ recipient: row.recipient_id, alarm: row.alarm_id, kind: row.kind }),
  }, { loop });

  const limits = { floorS: o.settings.checkinFloorS, ceilingS: o.offlineAfterHours * 3600, lagBoundS: o.silenceLagBoundS ?? 0 };
  const tickMs = o.tickMs ?? 1_000;
  let lastScan = -Infinity;
  /** Routes what was raised or cleared; the rows it made are sent now, not at the outbox's next poll. */
  async function route(withFleetDigests = false): Promise<boolean> {
    const r = await routeAlarms(o.pool, o.settings, now(), withFleetDigests ? o.fleetSummary : undefined);
    if (r.suppressed) m.suppressed.inc(r.suppressed);
    if (r.messages > 0) outbox.wake();
    return false;
  }
  async function tick(): Promise<void> {
    lastScan = Date.now();
    const raised = await scanCommunicationLost(o.pool, limits, now());
    if (raised.length) m.raised.inc({ kind: 'communication-lost' }, raised.length);
    // Fleet digests fall due with time only, so they are looked for once per tick, not at every raise.
    await route(true);
  }

  // A raise is routed as it arrives (NOTIFY alarm_changes, migration 0017); the communication-lost clock, which
  // only time moves, scans once per tick.
  const wakeups = loop ? startWakeups({
    pool: o.pool, channel: 'alarm_changes', tickMs, component: 'alarms',
    step: async () => { if (Date.now() - lastScan >= tickMs) await tick(); else await route(); return false; },
  }) : null;

  return {
    tick,
    sendOnce: () => outbox.runOnce(),
    async stop() {
      await Promise.all([wakeups?.stop(), outbox.stop()]);
      mailer?.close();
    },
  };
}

/** With the process's keyring; without one, webhooks with a secret wait, visibly, in the alarm outbox. */
export function startAlarms({ pool, settings, keyring, fleetSummary }: {
  pool: pg.Pool; settings: { alarms: AlarmSettings; offlineAfterHours: number; silenceLagBoundS: number }; keyring: Keyring | null; fleetSummary?: FleetSummaryOf;
}): AlarmWorker {
  return startAlarmWorker({ pool, settings: settings.alarms, offlineAfterHours: settings.offlineAfterHours, silenceLagBoundS: settings.silenceLagBoundS, keyring, fleetSummary });
}
