// One database per suite, filled the way production fills it: the reference data imported, every fixture
// message (then the API extras) fed one at a time through the real stages on the in-process transport,
// drained after each. Then the app on that database, and a token per fixture user from the real login.
import type { Hono } from 'hono';
import { createApp, type AppOptions } from '../../../api/app.js';
import { localAvroCodec } from '../../../stages/runtime/codec.js';
import { memoryTransport } from '../../../stages/runtime/transport/memory.js';
import { fixtureNames, fixtureText } from '../../../support/checkins.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { seedFleetAssessment } from '../../../support/fleet-assessment.js';
import { startTestPipeline } from '../../../support/pipeline.js';
import { importDemoData } from '../../../support/reference-data.js';
import { extraMessages } from './extra-messages.js';

export const USERS = {
  northAdmin: { email: 'admin@north.example', password: 'north-Admin-Pass-1' },
  northEast: { email: 'east@north.example', password: 'north-East-Pass-1' },
  southAdmin: { email: 'admin@south.example', password: 'south-Admin-Pass-1' },
  southEast: { email: 'east@south.example', password: 'south-East-Pass-1' },
} as const;
export type UserName = keyof typeof USERS;

export const JWT_SECRET = new TextEncoder().encode('api-test-secret-of-at-least-32-bytes!!');
/** "Now" for the suites: a day after the last fixture check-in, so online/offline is fixed. */
export const NOW = Date.parse('2026-11-21T12:00:00Z');

export interface SeededApi {
  db: TestDatabase;
  app: Hono;
  tokens: Record<UserName, string>;
  get(path: string, user: UserName | null, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

export async function fillDatabase(db: TestDatabase): Promise<void> {
  await importDemoData(db.pool);
  const transport = memoryTransport({ codec: localAvroCodec(), partitions: 4 });
  const pipe = await startTestPipeline(transport, db.pool);
  try {
    const messages = [...fixtureNames().map((name) => ({ name, body: fixtureText(name) })), ...extraMessages()];
    for (const m of messages) {
      await pipe.feed([m]);
      await pipe.drain();
    }
  } finally {
    await pipe.stop();
    await transport.close();
  }
  // What the fleet worker concludes from the days just written, so the fleet routes have rows to show.
  await seedFleetAssessment(db.pool, NOW);
}

/** An IEC 104 integration for `org` (the demo import has DNP3 and MultiSpeak only), so the 104 routes answer 200. */
export async function addIec104Integration(db: TestDatabase, org: string): Promise<void> {
  await db.pool.query(`insert into integrations (id, "OrganizationID", kind, channel, settings) values ($1, $2, 'iec104', 'A', '{"masterIdentity": "scada.${org}.example"}')`, [`${org}-104`, org]);
}

export async function login(app: Hono, user: UserName): Promise<string> {
  const res = await app.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(USERS[user]) });
  if (res.status !== 200) throw new Error(`login ${user}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { accessToken: string }).accessToken;
}

export interface SeedOptions {
  app?: Partial<AppOptions>;
  /** false: reference data only, no messages (suites that need users but no device data). */
  feed?: boolean;
}

export async function seededApi({ app: options = {}, feed = true }: SeedOptions = {}): Promise<SeededApi> {
  const db = await createTestDatabase('api');
  if (feed) await fillDatabase(db);
  else await importDemoData(db.pool);
  const app = createApp({ readiness: {}, pool: db.pool, jwtSecret: JWT_SECRET, now: () => NOW, ...options });
  const tokens = {} as Record<UserName, string>;
  for (const user of Object.keys(USERS) as UserName[]) tokens[user] = await login(app, user);
  return {
    db, app, tokens,
    get: async (path, user, headers = {}) => app.request(path, { headers: { ...(user ? { authorization: `Bearer ${tokens[user]}` } : {}), ...headers } }),
    close: () => db.drop(),
  };
}
