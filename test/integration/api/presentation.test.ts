// Response formatting over a database filled by the real stages (spec 4.2 "Response formatting"): the
// event transformations of spec 3.4, the masking of spec 3.5 (the `south` organisation masks), fault codes,
// State and FaultType as strings, and timestamps in the caller's zone including daylight-saving days.
import { gunzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { seededApi, type SeededApi, type UserName } from './seeded-api.js';
import { EXTRA } from './extra-messages.js';
import { isFaultEventType } from '../../../domain/fault-events.js';
import { MASKED_FIELDS } from '../../../domain/fault-masking.js';
import { imeiPaths, json, listPaths, type Json } from './paths.js';

const test = suite('presentation');
let api: SeededApi;
test.before(async () => { api = await seededApi(); });
test.after(async () => { await api?.close(); });

async function data(path: string, user: UserName): Promise<Json[]> {
  const res = await api.get(path, user);
  assert.is(res.status, 200, path);
  return (await json(res)).data as Json[];
}
const events = (imei: string, user: UserName = 'northAdmin') => data(`/device-records/device-information/events/${imei}`, user);
const byId = (rows: Json[], id: number) => rows.find((e) => e.EventID === id)!;

test('3.4 PFault: PermanentFaultResetCurrentThreshold = ceil(PrefaultCurrent / 2) (fixture 002: 140 -> 70)', async () => {
  const e = byId(await events('861000000000100'), 101);
  assert.is(e.EventType, 'PFault');
  assert.is(e.PermanentFaultResetCurrentThreshold, 70);
  assert.is(e.PostEventRef, null);
});

test('3.4 PFault: the threshold is at least 9 (fixture 010: PrefaultCurrent 5)', async () => {
  const e = byId(await events('861000000000000'), 301);
  assert.is(e.PrefaultCurrent, 5);
  assert.is(e.PermanentFaultResetCurrentThreshold, 9);
});

test('3.4 Current Reset: PrefaultCurrent <- FaultCurrent, FaultCurrent cleared, PostEventRef, threshold (fixture 004)', async () => {
  const e = byId(await events('861000000000200'), 55);
  assert.equal(
    { PrefaultCurrent: e.PrefaultCurrent, FaultCurrent: e.FaultCurrent, PostEventRef: e.PostEventRef, PermanentFaultResetCurrentThreshold: e.PermanentFaultResetCurrentThreshold },
    { PrefaultCurrent: 96, FaultCurrent: '', PostEventRef: 'Reset Current (A)', PermanentFaultResetCurrentThreshold: 48 },
  );
});

test('3.4 SOTF: RecoverCurrent cleared; Fault Like: PostEventRef', async () => {
  const list = await events(EXTRA.chicagoDst.imei);
  const sotf = byId(list, 901);
  assert.is(sotf.EventType, 'SOTF');
  assert.is(sotf.RecoverCurrent, '');
  assert.is(sotf.FaultCurrent, 640, 'other currents unchanged');
  const like = byId(list, 900);
  assert.is(like.EventType, 'Fault Like');
  assert.is(like.PostEventRef, 'Load 15s After Event (A)');
  assert.is(like.RecoverCurrent, 70);
});

test('3.4 Fault <50: PostEventRef, and the stored 30 s shift shows (fixture 007: 14:25:00Z -> 14:24:30Z = 08:24 AM CST)', async () => {
  const list = await events('861000000000500');
  const lt50 = byId(list, 201);
  assert.is(lt50.PostEventRef, 'Load 15s After Event (A)');
  assert.is(lt50.EventTimestamp, '2026-Nov-20 08:24 AM');
  assert.is(byId(list, 202).PostEventRef, null, 'TFault is unchanged');
});

test('3.4 applies in critical-data too (every fault event, with device information)', async () => {
  const rows = await data('/device-records/critical-data?limit=500', 'northAdmin');
  const reset = rows.find((r) => r.EventType === 'PFault' && r.IMEINumber === '861000000000100')!;
  assert.is(reset.PermanentFaultResetCurrentThreshold, 70);
  assert.is(reset.Real_Name, 'North F7 Pole 41 Phase B');
  assert.is(reset.PowerLineName, 'Feeder 7');
  const types = new Set(rows.map((r) => r.EventType));
  for (const t of ['PFault', 'TFault', 'SOTF', 'Fault Like', 'Fault <50', 'Overcurrent', 'FAULT_INITIAL', 'Model Change']) assert.ok(types.has(t), `critical-data has ${t}`);
  assert.not.ok(types.has('Current Reset'), 'Current Reset is not a fault event');
});

test('critical-data: each fault event shows the faults of the check-in that brought it, a day range too', async () => {
  for (const path of ['/device-records/critical-data?limit=500', '/device-records/critical-data?limit=500&from=20261101&to=20261130']) {
    const rows = (await data(path, 'northAdmin')).filter((r) => r.Source !== 'model_change');
    assert.ok(rows.length > 5, path);
    // Every fixture event came in a check-in, whose faults the row shows (filled after the page is read: critical-data.ts fillCheckIns).
    assert.equal(rows.filter((r) => r.Ongoing_fault === null || r.ActualOngoingFault === null).map((r) => [r.IMEINumber, r.EventType]), [], path);
    const reset = rows.find((r) => r.EventType === 'PFault' && r.IMEINumber === '861000000000100')!;
    const [checkIn] = (await data(`/device-records/device-information/data-log/861000000000100?sortBy={"field":"date","order":"asc"}`, 'northAdmin'))
      .filter((c) => c.date === reset.PacketTimestamp);
    assert.ok(checkIn, `the check-in of ${String(reset.PacketTimestamp)}`);
    assert.equal([reset.Ongoing_fault, reset.ActualOngoingFault], [checkIn!.Ongoing_fault, checkIn!.ActualOngoingFault], path);
  }
});

test('critical-data shows the model-change alert as EventType Model Change', async () => {
  const rows = await data('/device-records/critical-data?filterBy={"EventType":"Model Change"}', 'northAdmin');
  assert.is(rows.length, 1);
  assert.equal(
    { Source: rows[0]!.Source, IMEINumber: rows[0]!.IMEINumber, oldModel: rows[0]!.oldModel, newModel: rows[0]!.newModel, EventTimestamp: rows[0]!.EventTimestamp },
    { Source: 'model_change', IMEINumber: EXTRA.modelChange.imei, oldModel: EXTRA.modelChange.oldModel, newModel: EXTRA.modelChange.newModel, EventTimestamp: '2026-Nov-20 10:05 AM' },
  );
});

test('DM1 events appear in the device\'s events with EventTable dm1', async () => {
  const list = await events('861000000000400');
  assert.equal(list.map((e) => [e.EventTable, e.EventType]), [['dm1', 'FAULT_INITIAL']]);
});

test('codes as strings, unmasked (north): Ongoing_fault, ActualOngoingFault, State, FaultType', async () => {
  const rec = (await data('/device-records/device-information/data-log/861000000000000?sortBy={"field":"date","order":"desc"}', 'northAdmin'))[0]!;
  assert.equal([rec.Ongoing_fault, rec.ActualOngoingFault, rec.State, rec.FaultType], ['Probable Temp Fault', 'Probable Temp Fault', 'Normal', 'None']);
  const map = await data('/device-records/map-data', 'northAdmin');
  assert.equal(map.map((d) => d.ActualOngoingFault), ['Probable Temp Fault', 'Permanent', 'Current Reset', 'Over Current', 'Permanent', 'Temporary', 'None']);
});

test('map-data goes out with an ETag: 304 to a poll that holds it, gzip to a client that takes it, per caller', async () => {
  const plain = await api.get('/device-records/map-data', 'northAdmin');
  const etag = plain.headers.get('etag');
  assert.ok(etag && /^"[\w-]+"$/.test(etag), `strong ETag: ${etag}`);
  assert.is(plain.headers.get('cache-control'), 'private, no-cache');
  const body = await plain.text();
  assert.ok((JSON.parse(body) as { data: unknown[] }).data.length > 0);

  const poll = await api.get('/device-records/map-data', 'northAdmin', { 'if-none-match': `"other", ${etag}` });
  assert.is(poll.status, 304);
  assert.is(await poll.text(), '');
  assert.is((await api.get('/device-records/map-data', 'northAdmin', { 'if-none-match': '"stale"' })).status, 200);

  const zipped = await api.get('/device-records/map-data', 'northAdmin', { 'accept-encoding': 'br;q=1, gzip;q=0.5' });
  assert.is(zipped.headers.get('content-encoding'), 'gzip');
  assert.is(gunzipSync(Buffer.from(await zipped.arrayBuffer())).toString(), body);
  const refused = await api.get('/device-records/map-data', 'northAdmin', { 'accept-encoding': 'gzip;q=0' });
  assert.is(refused.headers.get('content-encoding'), null);

  // Another caller's view is another answer: its ETag does not match, its body is its own.
  const east = await api.get('/device-records/map-data', 'northEast', { 'if-none-match': etag! });
  assert.is(east.status, 200);
  assert.is.not(east.headers.get('etag'), etag);
});

// Spec 3.5 and its principle (docs/decisions.md#masking): south masks. Every field of MASKED_FIELDS, on every
// read path under both prefixes, as an admin and as a group user.
const NONE_OR_FAULT = new Set(['None', 'Fault', null]);
function maskedFieldValues(body: unknown): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>(Object.keys(MASKED_FIELDS).map((k) => [k, []]));
  JSON.stringify(body, function (this: Record<string, unknown>, key, value: unknown) {
    // FaultCurrent / RecoverCurrent are masked only on fault events (which then read Fault).
    if (out.has(key) && (!['FaultCurrent', 'RecoverCurrent'].includes(key) || this.EventType === 'Fault')) out.get(key)!.push(value);
    return value;
  });
  return out;
}

function assertMasked(label: string, body: unknown): Map<string, unknown[]> {
  const values = maskedFieldValues(body);
  for (const f of ['Ongoing_fault', 'ActualOngoingFault', 'FaultType']) for (const v of values.get(f)!) assert.ok(NONE_OR_FAULT.has(v as string), `${label} ${f}: ${String(v)}`);
  for (const v of values.get('EventType')!) assert.not.ok(isFaultEventType(v), `${label} EventType ${String(v)}`);
  for (const f of ['PermanentFaultResetCurrentThreshold', 'PostEventRef']) for (const v of values.get(f)!) assert.is(v, null, `${label} ${f}`);
  // Every fault event alike (issue 41 finding 8): a number would tell the other classes from SOTF.
  for (const v of values.get('RecoverCurrent')!) assert.is(v, null, `${label} RecoverCurrent on a fault event`);
  return values;
}

test('3.5 masking: the south organisation never reads a fault class, on every endpoint and every masked field', async () => {
  const paths = [...listPaths(), ...imeiPaths(EXTRA.southFault.imei), ...imeiPaths(EXTRA.sydneyDst.imei)];
  const seen = new Map<string, unknown[]>(Object.keys(MASKED_FIELDS).map((k) => [k, []]));
  for (const path of paths) {
    const body = await json(await api.get(path, 'southAdmin'));
    for (const [f, vs] of assertMasked(`southAdmin ${path}`, body)) seen.get(f)!.push(...vs);
    assertMasked(`southEast ${path}`, await json(await api.get(path, 'southEast')));
  }
  // Not vacuous: each masked field was there with a value the mask changed.
  for (const f of ['Ongoing_fault', 'ActualOngoingFault', 'FaultType', 'EventType']) assert.ok(seen.get(f)!.includes('Fault'), `${f} read Fault somewhere`);
  for (const f of ['PermanentFaultResetCurrentThreshold', 'PostEventRef', 'RecoverCurrent']) assert.ok(seen.get(f)!.includes(null), `${f} was masked somewhere`);
  const north = await json(await api.get(`/device-records/device-information/data-log/861000000000100`, 'northAdmin'));
  assert.ok(JSON.stringify(north).includes('"Permanent"'), 'north is not masked');
  const map = await data('/device-records/map-data', 'southAdmin');
  const byImei = Object.fromEntries(map.map((d) => [d.IMEINumber, d.ActualOngoingFault]));
  assert.equal([byImei['861100000000000'], byImei['861100000000100'], byImei['861100000000400'], byImei['861100000000200']], ['Fault', 'None', 'Fault', null]);
});

test('3.5 masking: FaultType 2 and the SOTF of south read Fault; every fault event\'s RecoverCurrent reads null, not only the SOTF\'s', async () => {
  const rec = (await data(`/device-records/device-information/data-log/${EXTRA.southFault.imei}`, 'southAdmin'))[0]!;
  assert.equal([rec.FaultType, rec.Ongoing_fault, rec.ActualOngoingFault], ['Fault', 'Fault', 'Fault']);
  const ev = await data(`/device-records/device-information/events/${EXTRA.southOtherGroup}`, 'southAdmin');
  assert.equal(ev.map((e) => [e.EventType, e.RecoverCurrent, e.PermanentFaultResetCurrentThreshold]), [['Fault', null, null], ['Fault', null, null]]);
});

test('3.5 masking: sort keys and filters that would reveal the class are a 400 naming the parameter; None / Fault work', async () => {
  const refused: [string, string][] = [
    ['/device-records/data-log?sortBy={"field":"FaultType"}', 'sortBy'], // not sortable at all: the usual 400
    ['/device-records/critical-data?sortBy={"field":"EventType"}', 'sortBy'],
    ['/device-records/all-devices?sortBy={"field":"ActualOngoingFault"}', 'sortBy'],
    ['/device-records/device-information/events/861100000000400?sortBy={"field":"EventType"}', 'sortBy'],
    ['/device-records/critical-data?filterBy[EventType]=PFault', 'filterBy[EventType]'],
    ['/device-records/critical-data?filterBy[EventType][contains]=Fault', 'filterBy[EventType]'],
    ['/device-records/device-information/events/861100000000400?filterBy[EventType][in]=TFault,SOTF', 'filterBy[EventType]'],
    ['/device-records/data-log?filterBy[FaultType]=Permanent', 'filterBy[FaultType]'],
    ['/device-records/data-log?filterBy[FaultType]=2', 'filterBy[FaultType]'],
    ['/device-records/data-log?filterBy[Ongoing_fault]=Temporary', 'filterBy[Ongoing_fault]'],
    ['/device-records/critical-data?filterBy[ActualOngoingFault]=4', 'filterBy[ActualOngoingFault]'],
    ['/device-records/map-data?filterBy[ActualOngoingFault][in]=Fault,Permanent', 'filterBy[ActualOngoingFault]'],
  ];
  for (const [path, parameter] of refused) {
    const res = await api.get(path, 'southAdmin');
    assert.is(res.status, 400, path);
    const error = (await json(res)).error as Json;
    assert.is((error.details as Json).parameter, parameter, path);
    if (!path.includes('"FaultType"')) assert.match(String(error.message), 'masks fault details', path);
  }
  const faults = await data('/device-records/critical-data?filterBy[EventType]=Fault', 'southAdmin');
  assert.equal(faults.map((e) => e.EventType), ['Fault', 'Fault', 'Fault']);
  const typed = await data('/device-records/data-log?filterBy[FaultType]=Fault', 'southAdmin');
  assert.equal(typed.map((r) => r.IMEINumber), [EXTRA.southFault.imei]);
  // The same words work unmasked, so one portal query serves every organisation.
  const north = await data('/device-records/critical-data?filterBy[EventType]=Fault&limit=500', 'northAdmin');
  assert.ok(north.length > 0 && north.every((e) => isFaultEventType(e.EventType)));
});

test('3.5 masking: Current Reset (10) on a masked device reads Fault; the south summary has only None / Fault buckets', async () => {
  const recs = await data(`/device-records/device-information/data-log/${EXTRA.sydneyDst.imei}?sortBy={"field":"date","order":"asc"}`, 'southEast');
  assert.equal(recs.map((r) => r.ActualOngoingFault), ['Fault', 'None']);
  const summary = await json(await api.get('/device-records/device-summary', 'southAdmin'));
  assert.equal(summary.byActualOngoingFault, [{ ActualOngoingFault: 'None', count: 1 }, { ActualOngoingFault: 'Fault', count: 2 }]);
  const north = await json(await api.get('/device-records/device-summary', 'northAdmin'));
  assert.ok((north.byActualOngoingFault as Json[]).some((b) => b.ActualOngoingFault === 'Permanent' && b.count === 2), 'north is not masked');
});

// An integration key reads them unmasked (test/security/integration-keys.test.ts); a person's login of a masked
// organisation reads the masked form there too (docs/decisions.md#integration-keys-and-the-mask).
test('integration outputs: a masked organisation\'s admin login reads dnp3OrganizationDevices masked; an unmasked one\'s gets codes and texts', async () => {
  const south = (await (await api.get('/api/dnp3/dnp3OrganizationDevices', 'southAdmin')).json()) as Json[];
  const d = south.find((x) => x.IMEINumber === EXTRA.southFault.imei)!;
  assert.equal([d.ActualOngoingFault, d.ActualOngoingFaultText, d.dnp3Slot, d.BatteryOrLine], ['Fault', 'Fault', null, 'Line']);
  const north = (await (await api.get('/api/dnp3/dnp3OrganizationDevices', 'northAdmin')).json()) as Json[];
  const n = north.find((x) => x.IMEINumber === '861000000000100')!;
  assert.equal([n.ActualOngoingFault, n.ActualOngoingFaultText, n.LastCheckInTime], [4, 'Permanent', '2026-11-20T15:10:00.000Z']);
});

test('3.4 for the masked organisation: a type that names no fault (Current Reset) keeps its values, class-only fields read null', async () => {
  const pf = (await events(EXTRA.southFault.imei, 'southEast'))[0]!;
  assert.equal([pf.EventType, pf.PrefaultCurrent, pf.PermanentFaultResetCurrentThreshold], ['Fault', EXTRA.southFault.pfaultPrefault, null]);
  const reset = (await events(EXTRA.sydneyDst.imei, 'southEast'))[0]!;
  assert.equal([reset.EventType, reset.PrefaultCurrent, reset.FaultCurrent, reset.PostEventRef], ['Current Reset', 50, '', null]);
});

test('America/Chicago: a normal day, and the spring-forward day (01:30 CST, then 03:30 CDT)', async () => {
  const rec = (await data('/device-records/device-information/data-log/861000000000100?sortBy={"field":"date","order":"asc"}', 'northEast'))[0]!;
  assert.is(rec.date, '2026-Nov-20 08:05 AM');
  const dst = await data(`/device-records/device-information/data-log/${EXTRA.chicagoDst.imei}?from=${EXTRA.chicagoDst.day}&to=${EXTRA.chicagoDst.day}&sortBy={"field":"date","order":"asc"}`, 'northEast');
  assert.equal(dst.map((r) => r.date), [EXTRA.chicagoDst.beforeText, EXTRA.chicagoDst.afterText]);
  const ev = await events(EXTRA.chicagoDst.imei, 'northEast');
  assert.equal(ev.filter((e) => (e.EventID as number) >= 900).map((e) => [e.EventTimestamp, e.PacketTimestamp]),
    [['2026-Mar-08 03:29 AM', EXTRA.chicagoDst.afterText], ['2026-Mar-08 01:29 AM', EXTRA.chicagoDst.beforeText]]);
  const load = await data(`/device-records/device-information/load-history/${EXTRA.chicagoDst.imei}?from=${EXTRA.chicagoDst.day}&to=${EXTRA.chicagoDst.day}`, 'northEast');
  assert.equal(load.map((r) => r.PacketTimestamp), [EXTRA.chicagoDst.afterText, EXTRA.chicagoDst.beforeText]);
});

test('Australia/Sydney: a normal day, and the spring-forward day (01:30 AEST, then 03:30 AEDT)', async () => {
  const pf = (await events(EXTRA.southFault.imei, 'southEast'))[0]!;
  assert.equal([pf.EventTimestamp, pf.PacketTimestamp], ['2026-Nov-21 12:59 AM', '2026-Nov-21 01:00 AM']);
  const dst = await data(`/device-records/device-information/data-log/${EXTRA.sydneyDst.imei}?from=${EXTRA.sydneyDst.day}&to=${EXTRA.sydneyDst.day}&sortBy={"field":"date","order":"asc"}`, 'southEast');
  assert.equal(dst.map((r) => r.date), [EXTRA.sydneyDst.beforeText, EXTRA.sydneyDst.afterText]);
});

test('from / to are calendar days of the caller\'s zone: 14:00Z on 2026-11-20 is the 20th in Chicago, the 21st in Sydney', async () => {
  const north = await data('/device-records/device-information/data-log/861000000000000?from=20261120&to=20261120', 'northAdmin');
  assert.is(north.length, 3, 'fixtures 001, 009, 010');
  const south20 = await data(`/device-records/device-information/data-log/${EXTRA.southFault.imei}?from=20261120&to=20261120`, 'southAdmin');
  const south21 = await data(`/device-records/device-information/data-log/${EXTRA.southFault.imei}?from=20261121&to=20261121`, 'southAdmin');
  assert.equal([south20.length, south21.length], [0, 1]);
  const before = await data(`/device-records/device-information/data-log/${EXTRA.sydneyDst.imei}?to=20261003`, 'southAdmin');
  assert.is(before.length, 0, 'the DST day records are not on the 3rd in Sydney, though they are in UTC');
});

test.run();
