// Data of the masking walks (docs/decisions.md#masking): the north organisation holding every fault class
// wherever a reader could show one. The shipped fixtures and the API extras (PFault, TFault, SOTF, Fault Like,
// Fault <50, Overcurrent, FAULT_INITIAL, FaultType strings, a model change), then feeder north-F9 with its
// topology: a permanent, a momentary and an unknown-kind incident, a device stepping through every fault code
// that raises an alarm kind, a test fault, communication lost, and alarm rules naming classes with the messages
// they routed. All of it through the real pipeline, incident worker, alarm clock and router and the API itself;
// the walks then switch MaskFaultDetails on and read it back.
import type { Hono } from 'hono';
import { createApp } from '../../../api/app.js';
import { scanCommunicationLost } from '../../../alarms/clock.js';
import { routeAlarms } from '../../../alarms/router.js';
import { loadSettings } from '../../../config/settings.js';
import { startIncidentWorker } from '../../../incidents/worker.js';
import { ONGOING_FAULT as C, ONGOING_FAULT_TEXT } from '../../../domain/ongoing-fault-codes.js';
import { ALARM_KINDS, FAULT_CLASS_KINDS } from '../../../domain/alarm-kinds.js';
import { FAULT_EVENT_TYPES } from '../../../domain/fault-events.js';
import { INCIDENT_KINDS } from '../../../domain/incident-rules.js';
import { loadCodeStrings } from '../../../api/device-records/code-strings-file.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { localAvroCodec } from '../../../stages/runtime/codec.js';
import { memoryTransport } from '../../../stages/runtime/transport/memory.js';
import type { TestDatabase } from '../../../support/database.js';
import { startTestPipeline } from '../../../support/pipeline.js';
import { addIec104Integration, fillDatabase, JWT_SECRET, USERS } from '../api/seeded-api.js';
import { checkInAt, IMEI, topologyFile, type Name } from '../incidents/feeder.js';

// The words that name a class, from the tables that define the classes (not from the mask's own list): fault
// event types, FaultType and ongoing-fault texts that name a class, incident kinds, alarm kinds and labels.
// Left out on purpose: texts of states that are not fault classes (None, Decision, Current Reset, Low Battery,
// Disconnected, No Data; the API walk still requires their fields to read None / Fault).
const NOT_A_CLASS = new Set(['none', 'decision', 'current reset', 'low battery', 'disconnected', 'no data', 'unknown']);
export const CLASS_WORDS = [...new Set([
  ...FAULT_EVENT_TYPES,
  ...Object.values(loadCodeStrings().FaultType),
  ...ONGOING_FAULT_TEXT.values(),
  ...INCIDENT_KINDS.filter((k) => k !== 'unknown'),
  ...FAULT_CLASS_KINDS,
  ...ALARM_KINDS.filter((k) => FAULT_CLASS_KINDS.includes(k.id)).map((k) => k.label),
].map(String).filter((w) => !NOT_A_CLASS.has(w.toLowerCase())))];
const escape = (w: string) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const CLASS_RE = new RegExp(`(?<![A-Za-z0-9_])(?:${CLASS_WORDS.map(escape).join('|')})(?![A-Za-z0-9_])`, 'gi');
/** Every word of a text that names a class (whole words, any case). */
export const classWordsIn = (text: string): string[] => [...text.matchAll(CLASS_RE)].map((m) => m[0]);

export const MASKED_ORG = 'north';
/** The masked organisation's admin and a user limited to the north-east group. */
export const MASKED_USERS = { admin: USERS.northAdmin, groupUser: USERS.northEast } as const;

async function call(app: Hono, path: string, init: { method: string; token?: string; body?: unknown }): Promise<unknown> {
  const res = await app.request(path, {
    method: init.method,
    headers: { ...(init.token ? { authorization: `Bearer ${init.token}` } : {}), 'content-type': 'application/json' },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${init.method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

export async function seedEveryClass(db: TestDatabase): Promise<void> {
  await fillDatabase(db);
  await importReferenceData(db.pool, topologyFile());
  await addIec104Integration(db, MASKED_ORG);
  const transport = memoryTransport({ codec: localAvroCodec(), partitions: 4 });
  const pipe = await startTestPipeline(transport, db.pool);
  const now = Date.now();
  const at = checkInAt(now - 4 * 3600_000);
  const feed = async (...messages: { name: string; body: string }[]) => {
    for (const m of messages) {
      await pipe.feed([m]);
      await pipe.drain();
    }
  };
  try {
    await feed(...(Object.keys(IMEI) as Name[]).map((n) => at(n, 0, 0)));
    // A permanent incident on the trunk and lateral A (located by the topology).
    await feed(...(['H', 'T1', 'LA1'] as Name[]).map((n) => at(n, 10, C.PERMANENT, [{ type: 'PFault', atMin: 9.5 }])));
    // T1 (north-east, the group user's) through every code that raises a fault alarm kind, then low battery.
    let minute = 20;
    for (const code of [C.TEMPORARY, C.PROBABLE_TEMP_FAULT, C.OVER_CURRENT, C.OVER_CURRENT_NO_LOCAL_FAULT, C.CURRENT_RESET, C.DM1_PORT_1_FAULT, C.PERMANENT_ALT, C.LOW_BATTERY]) {
      await feed(at('T1', minute, code));
      minute += 10;
    }
    // A momentary incident (TFault alone), an unknown one (Fault Like alone), a permanent one by SOTF.
    await feed(at('LB1', 120, C.TEMPORARY, [{ type: 'TFault', atMin: 119.5 }]));
    await feed(at('T2', 160, 0, [{ type: 'Fault Like', atMin: 159.5 }, { type: 'Overcurrent', atMin: 159.6 }]));
    await feed(at('LA2', 200, C.PERMANENT, [{ type: 'SOTF', atMin: 199.5 }, { type: 'Fault <50', atMin: 199.6 }]));
    await feed(at('T2', 210, 0));

    // A test fault, through the API as the organisation's admin while it is unmasked.
    const app = createApp({
      readiness: {}, pool: db.pool, jwtSecret: JWT_SECRET, portalDir: null,
      testFaults: { queue: { description: 'the test pipeline', send: (name, body) => feed({ name, body }), close: async () => {} }, clearAfterMs: 60_000 },
    });
    const login = (await call(app, '/api/auth/login', { method: 'POST', body: USERS.northAdmin })) as { accessToken: string };
    const token = login.accessToken;
    await call(app, '/api/test-faults', { method: 'POST', token, body: { imei: IMEI.T2 } });
    await pipe.drain();

    // Rules that name classes (stored so; a masked organisation reads them as `fault`), and their messages.
    await call(app, '/api/alarm-recipients/north-desk', { method: 'PUT', token, body: { name: 'Ops desk', channel: 'email', address: 'ops@north.example' } });
    await call(app, '/api/alarm-rules/north-classes', { method: 'PUT', token, body: { class: 'operations', what: ['permanent', 'temporary', 'over-current', 'dm1-port-fault', 'low-battery'], who: ['north-desk'] } });
  } finally {
    await pipe.stop();
    await transport.close();
  }
  const worker = startIncidentWorker({ pool: db.pool }, { loop: false });
  for (let i = 0; i < 3; i++) await worker.runOnce();
  await worker.stop();
  const settings = loadSettings({});
  await scanCommunicationLost(db.pool, { floorS: settings.alarms.checkinFloorS, ceilingS: 26 * 3600 }, now + 30 * 24 * 3600_000);
  await routeAlarms(db.pool, { ...settings.alarms, stormThreshold: 10_000 }, Date.now());
}

export const setMasked = async (db: TestDatabase, masked: boolean) => {
  await db.pool.query('update organizations set "MaskFaultDetails" = $2 where "OrganizationID" = $1', [MASKED_ORG, masked]);
};
