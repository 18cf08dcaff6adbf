// What a 104 master did wrong, counted and shown (issue 33 point 3): the real station (startIec104Service, with
// its ledger and Postgres) and controlling stations that get things wrong over mutual TLS, raw TLS sockets with
// the development certificates: an interrogation to a common address the station does not serve, a command to
// an output (unknown type), an I frame before STARTDT, a wrong N(S), a certificate of a foreign CA carrying
// north's identity, and no certificate at all. GET /api/iec104/diagnostics then lists each reason for the
// integration it belongs to with its count and sentence; the refusal no integration can own is stored
// unattributed and shown to nobody (docs/decisions.md#master-diagnostics).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { connect, type ConnectionOptions } from 'node:tls';
import { createMiddleware } from 'hono/factory';
import type { Hono } from 'hono';
import { ApiError } from '../../../api/errors.js';
import type { AuthEnv, Caller } from '../../../api/auth/caller.js';
import { iec104DiagnosticsRoutes } from '../../../api/iec104/diagnostics.js';
import { IEC104_DIAGNOSTICS_PATH } from '../../../api/iec104/endpoints.js';
import { ApduParser, encodeApdu, type Apdu } from '../../../iec104/apci/apci.js';
import { REFUSAL_REASONS, type RefusalReason } from '../../../iec104/diagnostics/reasons.js';
import { startIec104Service, type Iec104Service } from '../../../iec104/service.js';
import { UNATTRIBUTED } from '../../../integrations/diagnostics-ledger.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { importDemoData } from '../../../support/reference-data.js';
import { waitFor } from '../../../support/wait-for.js';
import { devCerts } from '../../helpers/dev-certs.js';

const certs = devCerts('iec104-diag-');
const pem = (name: string) => readFileSync(certs.pem(name));
let db: TestDatabase;
let service: Iec104Service;
const heard: { integration: string; reason: RefusalReason; first: boolean }[] = [];

const STARTDT: Apdu = { format: 'U', fn: 'STARTDT_ACT' };
/** C_IC_NA_1 station interrogation (QOI 20), activation, to common address `ca`. */
const gi = (ca: number) => Uint8Array.from([100, 0x01, 6, 0, ca & 0xff, ca >> 8, 0, 0, 0, 20]);
/** C_SC_NA_1 single command (type 45), activation, CA 1, IOA 1: an output a fault indicator does not have. */
const SINGLE_COMMAND = Uint8Array.from([45, 0x01, 6, 0, 1, 0, 1, 0, 0, 0x01]);

interface Conn { frames: Apdu[]; closed: Promise<void>; send(a: Apdu): void; end(): void }

function open(tls: ConnectionOptions): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: service.server.port, ca: pem('ca'), servername: 'outstation.test', ...tls });
    const parser = new ApduParser();
    const frames: Apdu[] = [];
    const closed = new Promise<void>((r) => socket.on('close', () => r()));
    socket.on('error', () => {});
    socket.on('data', (c: Buffer) => { for (const f of parser.push(c)) frames.push(f); });
    socket.on('secureConnect', () => resolve({ frames, closed, send: (a) => socket.write(encodeApdu(a)), end: () => socket.destroy() }));
    socket.on('close', () => reject(new Error('closed before the handshake finished')));
  });
}
const master = (org: 'north' | 'south') => open({ cert: pem(`scada.${org}.example`), key: pem(`scada.${org}.example-key`) });

/** A connection the station refuses: in TLS 1.3 the client may finish its handshake before the station has checked its certificate. */
async function refused(tls: ConnectionOptions): Promise<void> {
  const c = await open(tls).catch(() => undefined);
  if (!c) return;
  c.send(STARTDT);
  await c.closed;
  assert.equal(c.frames, [], 'no APDU from the station');
}

async function started(org: 'north' | 'south'): Promise<Conn> {
  const c = await master(org);
  c.send(STARTDT);
  await waitFor('STARTDT con', () => c.frames.some((f) => f.format === 'U' && f.fn === 'STARTDT_CON'), { timeoutMs: 20_000 });
  return c;
}
/** The negative confirmation of type `type` with cause `cot`. */
const negative = (c: Conn, type: number, cot: number) => c.frames.some((f) => f.format === 'I' && f.asdu[0] === type && (f.asdu[2]! & 0x40) !== 0 && (f.asdu[2]! & 0x3f) === cot);

type Body = { organizationId: string; integrations: { id: string; masterIdentity: string; commonAddresses: { bank: number; commonAddress: number }[]; apci: Record<string, number>; expectedMasterSettings: string[]; refusals: { reason: string; meaning: string; count: number; firstAt: string; lastAt: string }[] }[] };

function api(caller: Partial<Caller> = {}): Hono<AuthEnv> {
  const auth = createMiddleware<AuthEnv>(async (c, next) => {
    c.set('caller', { userId: 1, org: 'north', role: 'admin', timeZone: 'UTC', maskFaultDetails: false, ...caller });
    await next();
  });
  const app = iec104DiagnosticsRoutes({ pool: db.pool, auth });
  app.onError((err, c) => c.json({ code: err instanceof ApiError ? err.code : String(err), message: err.message }, err instanceof ApiError ? err.status : 500));
  return app;
}

test.before(async () => {
  db = await createTestDatabase('iec104_diag');
  await importDemoData(db.pool);
  const insert = `insert into integrations (id, "OrganizationID", kind, channel, settings) values ($1, $2, 'iec104', 'A', $3)`;
  await db.pool.query(insert, ['north-104', 'north', { masterIdentity: 'scada.north.example', commonAddress: 5, k: 20, w: 10, t1: 30 }]);
  await db.pool.query(insert, ['south-104', 'south', { masterIdentity: 'scada.south.example' }]);
  // A third utility whose masters' CA is the rogue one: the handshake then accepts a rogue certificate, which names north.
  await db.pool.query(`insert into organizations ("OrganizationID", name) values ('east', 'East')`);
  await db.pool.query(insert, ['east-104', 'east', { masterIdentity: 'scada.east.example', caFile: certs.pem('rogue-ca') }]);
  service = await startIec104Service({
    pool: db.pool, port: 0, host: '127.0.0.1', tlsFiles: certs.outstation, offlineAfterHours: 26,
    onRefusal: (i, reason, first) => heard.push({ integration: i.id, reason, first }),
  });
});

test.after(async () => {
  await service?.close();
  await db?.drop();
  certs.remove();
});

test('north\'s master gets the common address and a command wrong: negative confirmations (46, 44), the connection kept, the first of each reason per connection flagged for the log', async () => {
  const c = await started('north');
  try {
    c.send({ format: 'I', ns: 0, nr: 0, asdu: gi(7) });
    await waitFor('COT 46 negative', () => negative(c, 100, 46));
    c.send({ format: 'I', ns: 1, nr: 0, asdu: SINGLE_COMMAND });
    c.send({ format: 'I', ns: 2, nr: 0, asdu: SINGLE_COMMAND });
    await waitFor('two COT 44 negatives', () => c.frames.filter((f) => f.format === 'I' && f.asdu[0] === 45 && (f.asdu[2]! & 0x3f) === 44).length === 2);
    // The right common address is served on the same connection.
    c.send({ format: 'I', ns: 3, nr: 0, asdu: gi(5) });
    await waitFor('GI to CA 5 terminated', () => c.frames.some((f) => f.format === 'I' && f.asdu[0] === 100 && (f.asdu[2]! & 0x3f) === 10));
  } finally {
    c.end();
  }
  assert.equal(heard.filter((h) => h.integration === 'north-104').map((h) => [h.reason, h.first]), [['unknownCommonAddress', true], ['unknownType', true], ['unknownType', false]]);
});

test('sequence errors: an I frame before STARTDT and a wrong N(S) close the connection', async () => {
  const before = await master('north');
  before.send({ format: 'I', ns: 0, nr: 0, asdu: gi(5) });
  await before.closed;
  const wrong = await started('north');
  wrong.send({ format: 'I', ns: 9, nr: 0, asdu: gi(5) });
  await wrong.closed;
  assert.ok(heard.some((h) => h.reason === 'missingStartdt') && heard.some((h) => h.reason === 'sequenceError'), JSON.stringify(heard));
});

test('TLS: a foreign CA\'s certificate naming north is counted for north; no certificate at all is unattributed', async () => {
  await refused({ cert: pem('rogue.example'), key: pem('rogue.example-key') });
  await refused({});
  // South's master, right in every way but a command: counted for south only.
  const south = await started('south');
  south.send({ format: 'I', ns: 0, nr: 0, asdu: SINGLE_COMMAND });
  await waitFor('south COT 44', () => negative(south, 45, 44));
  south.end();
  await waitFor('the unattributed handshake refusal stored', async () => (await db.pool.query(
    `select count from master_diagnostics where protocol = 'iec104' and integration_id = $1 and reason = 'tlsHandshake'`, [UNATTRIBUTED])).rows[0]?.count >= 1, { timeoutMs: 15_000 });
});

test('GET /api/iec104/diagnostics: north\'s refusals by reason with count and sentence, its settings, nothing of south and nothing unattributed', async () => {
  const app = api();
  let body: Body | undefined;
  const want: Partial<Record<RefusalReason, number>> = { unknownCommonAddress: 1, unknownType: 2, missingStartdt: 1, sequenceError: 1, tlsWrongIssuer: 1 };
  await waitFor('the counts the station wrote', async () => {
    const res = await app.request(IEC104_DIAGNOSTICS_PATH);
    assert.is(res.status, 200);
    body = (await res.json()) as Body;
    const got = Object.fromEntries(body.integrations[0]!.refusals.map((r) => [r.reason, r.count]));
    return Object.entries(want).every(([r, n]) => got[r] === n);
  }, { timeoutMs: 15_000, intervalMs: 250 });
  assert.is(body!.organizationId, 'north');
  assert.equal(body!.integrations.map((i) => i.id), ['north-104']);
  const north = body!.integrations[0]!;
  assert.equal(north.refusals.map((r) => r.reason).sort(), Object.keys(want).sort(), 'no TLS refusal without a certificate naming north, nothing of south');
  for (const r of north.refusals) {
    assert.is(r.meaning, REFUSAL_REASONS[r.reason as RefusalReason]);
    assert.ok(Date.parse(r.firstAt) <= Date.parse(r.lastAt));
  }
  assert.match(north.refusals.find((r) => r.reason === 'unknownCommonAddress')!.meaning, /cause 46/);
  assert.equal(north.commonAddresses[0], { bank: 0, commonAddress: 5 });
  assert.equal(north.apci, { k: 20, w: 10, t0: 30, t1: 30, t2: 10, t3: 20 });
  assert.is(north.masterIdentity, 'scada.north.example');
  assert.ok(north.expectedMasterSettings.some((s) => s.includes('"scada.north.example"')));
  assert.ok(north.expectedMasterSettings.some((s) => s.startsWith('Common address') && s.includes('5')));
  assert.ok(north.expectedMasterSettings.some((s) => s.includes('k = 20') && s.includes('w = 10')));

  const south = (await (await api({ org: 'south' }).request(IEC104_DIAGNOSTICS_PATH)).json()) as Body;
  assert.equal(south.integrations.map((i) => [i.id, i.refusals.map((r) => [r.reason, r.count])]), [['south-104', [['unknownType', 1]]]]);
});

test('no IEC 104 integration: 404 with a sentence; a user: 403; a query parameter: 400', async () => {
  const none = await api({ org: 'west' }).request(IEC104_DIAGNOSTICS_PATH);
  assert.is(none.status, 404);
  assert.match(((await none.json()) as { message: string }).message, 'Organisation west has no IEC 104 integration');
  assert.is((await api({ role: 'user' }).request(IEC104_DIAGNOSTICS_PATH)).status, 403);
  assert.is((await api().request(`${IEC104_DIAGNOSTICS_PATH}?x=1`)).status, 400);
});

test.run();
