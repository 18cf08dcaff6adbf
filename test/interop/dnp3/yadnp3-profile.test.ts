// The generated device profile (issue 21 point 1) against the outstation it describes: the profile is built
// from the same integration, outstation config and point map the server runs with, parsed as XML, and every
// claim the opendnp3 master (PyPI yadnp3) can observe is checked against what it gets: link addresses,
// fragment size, unsolicited behaviour, NEED_TIME, default variations, every READ row of the implementation
// table (variation and qualifier answered), the point list (indexes, names, classes, deadbands) and event
// buffer behaviour per class.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { convert } from 'xmlbuilder2';
import { Iin, parseResponse } from '../../../dnp3/app/header.js';
import { parseObjectHeaders } from '../../../dnp3/app/object-header.js';
import { applySnapshot, sizeBanks } from '../../../dnp3/data/apply.js';
import { pointMapBanks, pointMapRows, type DeviceSnapshot } from '../../../dnp3/data/point-map.js';
import type { Dnp3Integration } from '../../../dnp3/identity.js';
import { LinkParser } from '../../../dnp3/link/parser.js';
import { DEFAULT_OUTSTATION_CONFIG, Outstation, outstationConfigFor } from '../../../dnp3/outstation/outstation.js';
import { deviceProfileXml } from '../../../dnp3/profile/profile.js';
import { startDnp3Server, type Dnp3Server } from '../../../dnp3/server.js';
import { TransportReceiver } from '../../../dnp3/transport/transport.js';
import { Yadnp3Master, type Answer } from '../../../support/dnp3-master.js';
import { devCerts } from '../../helpers/dev-certs.js';
/** OFFLINE_AFTER_HOURS 26 as the communication-lost ceiling, the default floor (domain/checkin-clock.ts). */
const CLOCK_26H = { floorS: 300, ceilingS: 26 * 3600 };

const certs = devCerts('dnp3-profile-');
const { pem } = certs;

const integration: Dnp3Integration = {
  id: 'north-scada', organizationId: 'north', masterIdentity: 'scada.north.example', outstationAddress: 10, masterAddress: 1,
  unsolicited: true, tlsMinVersion: 'TLSv1.2', certificateMode: 'ca', analogOnly: false,
};
const now = Date.now();
const devices = [0, 1, 2].map((slot) => ({ imei: `86100000000010${slot}`, slot, name: `North F7 Pole ${slot}` }));
const snapshot = (slot: number, over: Partial<DeviceSnapshot> = {}): DeviceSnapshot => ({
  ...devices[slot]!, date: now - 60_000, actualOngoingFault: 0, batteryOrLine: 0, averageCurrent1m: 120.5, prefaultCurrent: 118, faultCurrent: null,
  faultTime: null, peakCurrent24h: 210, averageCurrent1h: 121.25, batteryMcu: 3.5, temperature: 21, ...over,
});

type X = Record<string, unknown>;
const list = <T = X>(v: unknown): T[] => (v === undefined ? [] : Array.isArray(v) ? v as T[] : [v as T]);
const text = (v: unknown): string => (typeof v === 'string' ? v : String((v as X)?.['#'] ?? ''));
const chosen = (item: X): string => Object.keys((item.currentValue ?? {}) as X).filter((k) => k !== 'note')[0]!;
const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'];
const gvName = (g: number, v: number) => `GroupVariation.Group${g}Var${v}`;

interface ProfilePoint { index: number; name: string; description: string; changeEventClass: string; staticVariation: number; eventVariation: number }

interface Session {
  outstation: Outstation; banks: Outstation[]; server: Dnp3Server; master: Yadnp3Master; tx: Uint8Array[];
  profile: X; binaries: ProfilePoint[]; analogs: ProfilePoint[]; startup: Answer;
}

function points(v: unknown): ProfilePoint[] {
  return list(v).map((p) => ({
    index: Number(text(p.index)), name: text(p.name), description: text(p.description), changeEventClass: text(p.changeEventClass),
    staticVariation: WORDS.indexOf(Object.keys(p.defaultStaticVariation as X)[0]!), eventVariation: WORDS.indexOf(Object.keys((p.defaultEventVariation ?? {}) as X)[0] ?? 'zero'),
  }));
}
const byName = (ps: ProfilePoint[], name: string, imei: string) => ps.find((p) => p.name.startsWith(name) && p.name.includes(imei))!;
const events = (a: Answer) => a.items.filter((i) => i.event);

/** The outstation of `integration` (unsolicited on or off), its generated profile, and the master's start-up. */
async function start(unsolicited: boolean): Promise<Session> {
  const i = { ...integration, unsolicited };
  const outstation = new Outstation(outstationConfigFor(i));
  const banks = [outstation];
  const tx: Uint8Array[] = [];
  sizeBanks(banks, 2, false);
  for (const d of devices) applySnapshot(banks, snapshot(d.slot), now, CLOCK_26H, false);
  const xml = deviceProfileXml({
    integration: i, sharedPort: 20000, config: outstation.config, banks: pointMapBanks(2, { outstationAddress: 10 }), bank: 0,
    points: pointMapRows(devices, { outstationAddress: 10 }), softwareVersion: 'test', generatedAt: '2026-11-24',
  });
  const profile = (convert(xml, { format: 'object' }) as X).DNP3DeviceProfileDocument as X;
  const dpl = ((profile.referenceDevice as X).dataPointsList as X);
  assert.ok(outstation.iin() & Iin.NEED_TIME);
  const server = await startDnp3Server({
    port: 0, host: '127.0.0.1',
    transport: { tls: { key: readFileSync(pem('outstation.test-key')), cert: readFileSync(pem('outstation.test')), ca: [readFileSync(pem('ca'))] } },
    integrations: () => [i], outstationsFor: () => banks,
    session: { onTraffic: (direction, bytes) => { if (direction === 'tx') tx.push(bytes.slice()); } },
  });
  const master = new Yadnp3Master(server.port, certs.master('north'));
  return {
    outstation, banks, server, master, tx, profile, startup: await master.startup(),
    binaries: points(((dpl.binaryInputPoints as X).dataPoints as X).binaryInput), analogs: points(((dpl.analogInputPoints as X).dataPoints as X).analogInput),
  };
}
async function stop(x: Session | undefined): Promise<void> {
  await x?.master.stop();
  await x?.server.close();
}

const test = suite('dnp3 device profile (unsolicited on)');
let on: Session;
test.before(async () => { on = await start(true); });
test.after(async () => { await stop(on); });

const config = (x: Session) => ((x.profile.referenceDevice as X).configuration as X);
const item = (x: Session, section: string, name: string) => ((config(x)[section] as X)[name] as X);
const current = (x: Session, section: string, name: string) => text(((item(x, section, name).currentValue as X).value));

test('link: the master at the expected source address polls the outstation at the profile\'s data link address', () => {
  assert.is(Number(current(on, 'linkConfig', 'dataLinkAddress')), 10);
  assert.is(Number(current(on, 'linkConfig', 'expectedSourceAddress')), 1);
  assert.ok(on.startup.items.length > 0 && on.startup.items.every((i) => i.outstation === 10));
  assert.is(chosen(item(on, 'linkConfig', 'sendsConfirmedUserDataFrames')), 'never');
  // Every frame we sent: unconfirmed user data (function 4) or a secondary reply, never CONFIRMED_USER_DATA (3).
  const frames = new LinkParser().push(Buffer.concat(on.tx));
  assert.ok(frames.length > 5);
  assert.not.ok(frames.some((f) => f.prm && f.func === 3), 'no confirmed user data sent');
  assert.ok(frames.every((f) => f.src === 10 && f.dest === 1));
});

test('application: no fragment larger than the profile\'s maximum; unsolicited as the profile says (null unsolicited at start-up)', () => {
  const max = Number(current(on, 'applConfig', 'maxTransmittedFragmentSize'));
  assert.is(max, DEFAULT_OUTSTATION_CONFIG.maxTxFragment);
  const transport = new TransportReceiver(1 << 16);
  const fragments = new LinkParser().push(Buffer.concat(on.tx)).filter((f) => f.prm && f.data.length > 0).flatMap((f) => transport.push(f.data).fragment ?? []);
  assert.ok(fragments.length > 3);
  assert.ok(fragments.every((f) => f.length <= max), `largest ${Math.max(...fragments.map((f) => f.length))}`);
  assert.is(chosen(item(on, 'unsolicitedConfig', 'supportsUnsolicitedReporting')), 'on');
  assert.ok(fragments.some((f) => f[1] === 0x82), 'an unsolicited response (function 130) was sent');
  assert.is(Number(current(on, 'unsolicitedConfig', 'masterDataLinkAddress')), 1);
});

test('time: IIN1.4 asserted at start-up until the master\'s time write', () => {
  assert.is(chosen(item(on, 'outstationPerformance', 'outstationSetsIIN14')), 'atStartup');
  assert.is(on.startup.iin.needTime, false);
});

test('point list: exactly the indexes the integrity poll returns, with the claimed default static variations', () => {
  const statics = on.startup.items.filter((i) => !i.event);
  assert.equal(on.binaries.map((p) => p.index), statics.filter((i) => i.kind === 'binary').map((i) => i.index).sort((a, b) => a - b));
  assert.equal(on.analogs.map((p) => p.index), statics.filter((i) => i.kind === 'analog').map((i) => i.index).sort((a, b) => a - b));
  for (const i of statics) {
    const p = (i.kind === 'binary' ? on.binaries : on.analogs).find((x) => x.index === i.index)!;
    assert.is(i.gv, gvName(i.kind === 'binary' ? 1 : 30, p.staticVariation), `${i.kind} ${i.index}`);
  }
});

/** The application fragments we sent since `mark`: function (0x81 response, 0x82 unsolicited) and object groups. */
function sentSince(x: Session, mark: number): { func: number; groups: number[] }[] {
  const transport = new TransportReceiver(1 << 16);
  return new LinkParser().push(Buffer.concat(x.tx.slice(mark))).filter((f) => f.prm && f.data.length > 0)
    .flatMap((f) => transport.push(f.data).fragment ?? [])
    .map((f) => { const r = parseResponse(f); return { func: r.func, groups: parseObjectHeaders(r.body, true).map((h) => h.group) }; });
}

test('a fault: events at the named points in the claimed classes and event variations; a class 1 poll answers class 1, class 2 comes unsolicited (the master enabled it)', async () => {
  const imei = devices[1]!.imei;
  applySnapshot(on.banks, snapshot(1, { actualOngoingFault: 4, faultCurrent: 812, faultTime: now - 500, date: now }), now, CLOCK_26H, false);
  const mark = on.tx.length;
  const got = events(await on.master.read(60, 2));
  const sent = sentSince(on, mark);
  // A solicited answer to READ g60v2 holds binary events only (every binary is class one in the profile). On a
  // loaded machine the unsolicited response may carry the binary events before the READ arrives, so the outcome
  // checked is where each class may go, not which path the race took.
  const solicited = sent.filter((f) => f.func === 0x81 && f.groups.length > 0);
  assert.ok(solicited.every((f) => f.groups.every((g) => g === 2)), JSON.stringify(sent));
  assert.ok(sent.some((f) => f.groups.includes(2)), `the binary events were sent: ${JSON.stringify(sent)}`);
  assert.ok(on.binaries.every((p) => p.changeEventClass === 'one'));
  // Class 2 (every analog but the heartbeat) arrives unsolicited: the profile says unsolicited is on.
  assert.ok(sent.some((f) => f.func === 0x82 && f.groups.includes(32)), JSON.stringify(sent));
  assert.ok(on.analogs.every((p) => p.changeEventClass === (p.index === 0 ? 'none' : 'two')));
  for (const e of got) {
    const p = (e.kind === 'binary' ? on.binaries : on.analogs).find((x) => x.index === e.index)!;
    assert.is(e.gv, gvName(e.kind === 'binary' ? 2 : 32, p.eventVariation));
  }
  assert.equal(got.find((e) => e.kind === 'binary' && e.index === byName(on.binaries, 'permanent fault', imei).index)?.value, true);
  assert.equal(got.find((e) => e.kind === 'analog' && e.index === byName(on.analogs, 'ActualOngoingFault code', imei).index)?.value, 4);
  assert.equal(got.find((e) => e.kind === 'analog' && e.index === byName(on.analogs, 'last FaultCurrent', imei).index)?.time, now - 500);
  assert.is(events(await on.master.command('events')).length, 0, 'confirmed events are gone');
});

test('deadbands: a change within the profile\'s deadband makes no event, one beyond it does', async () => {
  const p = byName(on.analogs, 'AverageCurrent1m', devices[2]!.imei);
  const deadband = Number(/deadband ([\d.]+)/.exec(p.description)![1]);
  assert.is(deadband, 1);
  applySnapshot(on.banks, snapshot(2, { averageCurrent1m: 120.5 + deadband * 0.5 }), now, CLOCK_26H, false);
  assert.is(events(await on.master.command('events')).filter((e) => e.index === p.index).length, 0);
  applySnapshot(on.banks, snapshot(2, { averageCurrent1m: 120.5 + deadband * 1.5 }), now, CLOCK_26H, false);
  assert.equal(events(await on.master.command('events')).filter((e) => e.index === p.index).map((e) => e.value), [120.5 + deadband * 1.5]);
});

test.run();

const second = suite('dnp3 device profile (unsolicited off)');
let off: Session;
second.before(async () => { off = await start(false); });
second.after(async () => {
  await stop(off);
  certs.remove();
});

second('unsolicited off in the profile: the outstation refuses ENABLE_UNSOLICITED and never sends an unsolicited response', () => {
  assert.is(chosen(item(off, 'unsolicitedConfig', 'supportsUnsolicitedReporting')), 'off');
  assert.not.ok(sentSince(off, 0).some((f) => f.func === 0x82));
});

second('implementation table: every READ row of groups 1, 2, 30 and 32 answered with the variation it names (qualifiers 06 and 00/01)', async () => {
  const rows = list(((((off.profile.referenceDevice as X).implementationTable as X).table as X).supportedVariation));
  let checked = 0;
  let toggle = 0;
  for (const r of rows) {
    const g = Number(text(r.objectGroup));
    const v = Number(text(r.variation));
    const request = r.request as X | undefined;
    if (![1, 2, 30, 32].includes(g) || !request || !list<string>(request.functionCode).map(text).includes('1')) continue;
    const expectedV = v !== 0 ? v : { 1: 2, 2: 2, 30: 5, 32: 7 }[g]!;
    const event = g === 2 || g === 32;
    if (event) {
      // Make one event of the group's type, then read it with this variation.
      toggle++;
      applySnapshot(off.banks, snapshot(0, g === 2 ? { actualOngoingFault: toggle % 2 ? 2 : 0 } : { temperature: 21 + 5 * toggle }), now, CLOCK_26H, false);
    }
    const a = await off.master.read(g, v);
    const got = a.items.filter((i) => i.event === event && i.kind === (g < 3 ? 'binary' : 'analog'));
    assert.ok(got.length > 0, `g${g}v${v}: something answered`);
    assert.ok(got.every((i) => i.gv === gvName(g, expectedV)), `g${g}v${v}: ${[...new Set(got.map((i) => i.gv))].join(',')}`);
    if (!event) {
      assert.is(got.length, (g === 1 ? off.binaries : off.analogs).length, `g${g}v${v}: every point`);
      const range = await off.master.read(g, v, [2, 5]);
      assert.equal(range.items.map((i) => i.index), [2, 3, 4, 5], `g${g}v${v} range`);
    }
    await off.master.command('events'); // leave no event for the next row
    checked++;
  }
  assert.is(checked, 15);
});

second.run();
