// Replay on the real broker and Postgres: after every fixture went through the pipeline, `replay` re-reads
// fi.raw.v1 from the beginning through every stage, and every table is exactly as before.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadModelMap, loadSettings } from '../../../config/settings.js';
import { replay, ReplayError, type ReplayProgress } from '../../../stages/replay.js';
import { replayReach } from '../../../stages/replay-reach.js';
import { DEFAULT_DEAD_LETTER_BODY_BYTES, DEFAULT_MAX_BODY_BYTES, decide } from '../../../stages/bridge/index.js';
import { TOPICS } from '../../../schemas/avro/topics.js';
import { infraEnv } from '../../../infra/endpoints.js';
import { listGroups } from '../../../support/kafka.js';
import { startFaultline } from '../../../support/process.js';
import { fixtureNames, fixtureText } from '../../../support/checkins.js';
import { dumpTables } from '../../../support/database.js';
import { startKafkaRig, startTestPipeline, type KafkaRig } from '../../../support/pipeline.js';
import { CHAIN } from '../../../config/pipeline-split.js';

let rig: KafkaRig;
test.before(async () => { rig = await startKafkaRig('replay'); });
test.after(async () => { await rig?.stop(); });

const replayGroups = async () => (await listGroups()).filter((g) => g.includes('.replay-') || g.includes('.reach-'));
const suiteStart = Date.now();
/** When the fixtures had been fed (before any replay appended copies): --to and --from bounds between them. */
let fedAt = 0;
/** The fixtures' check-ins on fi.raw.v1, per device (the bridge dead-letters the malformed ones before it). */
const rawPerDevice = () => {
  const counts: Record<string, number> = {};
  for (const name of fixtureNames()) {
    const d = decide({ messageId: name, body: fixtureText(name), source: 'spool' }, { maxBodyBytes: DEFAULT_MAX_BODY_BYTES, deadLetterBodyBytes: DEFAULT_DEAD_LETTER_BODY_BYTES, receivedAt: 0 });
    if (d.kind === 'raw') counts[d.key] = (counts[d.key] ?? 0) + 1;
  }
  return counts;
};
const logEnd = async () => (await rig.transport.topicRange(TOPICS.raw, 0)).reduce((n, p) => n + Number(p.end), 0);

test('replaying fi.raw.v1 from the beginning re-reads every raw record, waits until the pipeline applied them, leaves every table identical and no group behind', async () => {
  for (const name of fixtureNames()) {
    await rig.pipe.feed([{ name, body: fixtureText(name) }]);
    await rig.pipe.drain();
  }
  const before = await dumpTables(rig.db.pool);
  assert.ok((before.device_records ?? []).length >= 10, 'the fixtures were stored');
  fedAt = Date.now() + 1;
  await new Promise((r) => setTimeout(r, 10));

  const progress: ReplayProgress[] = [];
  const started = Date.now();
  const result = await replay({ transport: rig.transport, from: 0, onProgress: (p) => progress.push(p), pollMs: 100 });
  // 14 fixtures, of which the bridge dead-lettered 2 before fi.raw.v1; the unknown device's check-in is stored.
  const raw = fixtureNames().length - 2;
  console.log(`replay of ${raw} records, read and applied: ${Date.now() - started} ms`);
  assert.equal({ ...result, group: '' }, { total: raw, reread: raw, copiesSkipped: 0, otherDevices: 0, resent: raw, applied: raw, caughtUp: true, group: '' });
  // No drain here: replay itself waited until every live stage had applied what it re-read.
  assert.equal(await dumpTables(rig.db.pool), before);
  const reading = progress.filter((p) => p.phase === 'reading');
  assert.ok(reading.every((p) => p.phase === 'reading' && p.total === raw && p.reread <= p.total), 'progress totals add up');
  assert.ok(progress.some((p) => p.phase === 'applying'), 'the applying phase was reported');
  assert.equal(await replayGroups(), [], 'the replay removed its consumer group');
});

test('a replay of a range with no records returns at once', async () => {
  const started = Date.now();
  const result = await replay({ transport: rig.transport, from: Date.now() + 60_000 });
  assert.equal([result.total, result.reread, result.caughtUp], [0, 0, true]);
  // "At once": without waiting for a consumer group to form and time out (tens of seconds).
  assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
});

test('an interrupted replay stops, says how far it got, and removes its group', async () => {
  const interrupt = new AbortController();
  interrupt.abort();
  try {
    await replay({ transport: rig.transport, from: 0, signal: interrupt.signal, pollMs: 100 });
    assert.unreachable('an interrupted replay must throw');
  } catch (err) {
    assert.instance(err, ReplayError);
    assert.is((err as ReplayError).code, 'INTERRUPTED');
    // The log holds the 12 check-ins and the 12 copies the first replay appended.
    assert.match((err as Error).message, `interrupted after re-reading 0 of ${2 * (fixtureNames().length - 2)} records`);
  }
  assert.equal(await replayGroups(), []);
});

test('without a running pipeline replay fails at once with a clear message and re-reads nothing', async () => {
  await rig.pipe.stop();
  try {
    await replay({ transport: rig.transport, from: 0 });
    assert.unreachable('replay must refuse');
  } catch (err) {
    assert.instance(err, ReplayError);
    assert.match((err as Error).message, 'no running pipeline: consumer group faultline.enrich has no member');
  }
  // The command says the same, in one sentence, and exits non-zero.
  const cli = startFaultline(['replay', '--from-beginning'], { ...infraEnv(), DATABASE_URL: rig.db.url });
  assert.is(await cli.exited, 1, cli.output());
  assert.match(cli.output(), 'faultline: no running pipeline');
  assert.equal(await replayGroups(), []);
  rig.pipe = await startTestPipeline(rig.transport, rig.db.pool);
});

test('replay --reprocess recomputes the derived columns with the rules now running, and nothing else', async () => {
  const before = await dumpTables(rig.db.pool);
  // A rule change is deployed: a lower low-current threshold, and a map without the FI-2000-A key.
  await rig.pipe.stop();
  const shipped = loadModelMap(loadSettings({}).modelMapFile);
  const modelMap = new Map([...shipped].filter(([k]) => k !== 'FI-2000-A'));
  rig.pipe = await startTestPipeline(rig.transport, rig.db.pool, { modelMap, lowCurrentA: 0.1 });

  const result = await replay({ transport: rig.transport, from: 0, reprocess: true, pollMs: 100 });
  // Copies the first replay appended are skipped: each check-in is re-sent once.
  const raw = fixtureNames().length - 2;
  assert.equal([result.total, result.copiesSkipped, result.resent, result.applied], [2 * raw, raw, raw, raw]);
  await rig.pipe.drain(60_000);
  const after = await dumpTables(rig.db.pool);

  const record = (dump: Record<string, unknown[]>, imei: string, date: string) =>
    (dump.device_records as Record<string, unknown>[]).find((r) => r.IMEINumber === imei && r.date === date)!;
  // 010: PERMANENT after a low reading; 0.4 A is no longer "very low" at 0.1 A, so no PROBABLE_TEMP_FAULT.
  assert.is(record(before, '861000000000000', '2026-11-20T15:05:00.000Z').ActualOngoingFault, 11);
  assert.is(record(after, '861000000000000', '2026-11-20T15:05:00.000Z').ActualOngoingFault, 4);
  assert.is(record(after, '861000000000000', '2026-11-20T15:05:00.000Z').Ongoing_fault, 4);
  // 008: the reported model is no longer replaced.
  assert.is(record(before, '861000000000600', '2026-11-20T14:35:00.000Z').model, 'FCI-2000');
  assert.is(record(after, '861000000000600', '2026-11-20T14:35:00.000Z').model, 'FI-2000-A');

  // Everything else is as it was: only those two records changed, and only in derived columns.
  const strip = (dump: Record<string, unknown[]>) => ({
    ...dump,
    device_records: (dump.device_records as Record<string, unknown>[]).map(({ model: _m, Ongoing_fault: _o, ActualOngoingFault: _a, ...rest }) => rest),
    device_latest: (dump.device_latest as Record<string, unknown>[]).map(({ ActualOngoingFault: _a, ...rest }) => rest),
  });
  // The latest status of that device follows its recomputed newest record.
  const latest = (after.device_latest as Record<string, unknown>[]).find((r) => r.IMEINumber === '861000000000000')!;
  assert.is(latest.ActualOngoingFault, 4);
  assert.equal(strip(after), strip(before));
  const changed = (after.device_records as Record<string, unknown>[]).filter((r, i) => JSON.stringify(r) !== JSON.stringify((before.device_records as unknown[])[i]));
  assert.is(changed.length, 2);
});

test('on the fully split shape a replay waits for every segment and leaves every table identical', async () => {
  await rig.pipe.stop();
  rig.pipe = await startTestPipeline(rig.transport, rig.db.pool, { split: CHAIN.slice(1) });
  await rig.pipe.drain(60_000);
  const before = await dumpTables(rig.db.pool);
  const progress: ReplayProgress[] = [];
  const result = await replay({ transport: rig.transport, from: 0, split: CHAIN.slice(1), pollMs: 100, onProgress: (p) => progress.push(p) });
  assert.ok(result.caughtUp && result.applied === fixtureNames().length - 2, JSON.stringify({ ...result, group: '' }));
  const waited = new Set(progress.flatMap((p) => (p.phase === 'applying' ? [p.segment] : [])));
  assert.equal([...waited], CHAIN.map((s) => `faultline.${s}`));
  assert.equal(await dumpTables(rig.db.pool), before);
});

test('replay --imei re-sends only that device\'s check-ins (within --to), waits until they are applied, and changes no table', async () => {
  const perDevice = rawPerDevice();
  const raw = fixtureNames().length - 2;
  const [imei, n] = Object.entries(perDevice).sort(([, a], [, b]) => b - a)[0]!;
  assert.ok(n >= 2 && n < raw, `${imei}: ${n} of ${raw}`);
  const before = await dumpTables(rig.db.pool);
  const endBefore = await logEnd();
  // The running pipeline is the fully split one the test before started.
  const result = await replay({ transport: rig.transport, from: 0, to: fedAt, imeis: new Set([imei]), split: CHAIN.slice(1), pollMs: 100 });
  assert.equal([result.total, result.reread, result.resent, result.otherDevices, result.copiesSkipped, result.applied, result.caughtUp], [raw, raw, n, raw - n, 0, n, true]);
  assert.is(await logEnd(), endBefore + n, 'one copy per re-sent check-in, none for other devices');
  assert.equal(await dumpTables(rig.db.pool), before);
  assert.equal(await replayGroups(), []);
});

test('replay --dry-run counts per day and device what --from/--to/--imei select, sends nothing and needs no running pipeline', async () => {
  await rig.pipe.stop();
  const perDevice = rawPerDevice();
  const raw = fixtureNames().length - 2;
  const endBefore = await logEnd();
  const originals = await replay({ transport: rig.transport, from: 0, to: fedAt, dryRun: true, pollMs: 100 });
  assert.equal([originals.total, originals.resent, originals.copiesSkipped, originals.otherDevices, originals.applied], [raw, raw, 0, 0, 0]);
  assert.equal(Object.fromEntries(originals.preview!.devices.map((d) => [d.imei, d.records])), perDevice);
  assert.ok(originals.preview!.devices.every((d) => d.first >= suiteStart && d.first <= d.last && d.last < fedAt));
  // Append days: the days this suite fed the fixtures on (one, unless it ran across midnight UTC).
  const days = originals.preview!.days;
  assert.is(days.reduce((n, d) => n + d.records, 0), raw);
  assert.ok(days.every((d) => d.day >= new Date(suiteStart).toISOString().slice(0, 10) && d.day <= new Date(fedAt).toISOString().slice(0, 10)), JSON.stringify(days));
  assert.is(Math.max(...days.map((d) => d.devices)) <= Object.keys(perDevice).length, true);
  // After fedAt the log holds only copies made by the replays above: all skipped, nothing would be re-sent.
  const copies = await replay({ transport: rig.transport, from: fedAt, dryRun: true, pollMs: 100 });
  assert.ok(copies.total > 0 && copies.copiesSkipped === copies.total && copies.resent === 0, JSON.stringify({ ...copies, preview: undefined }));
  assert.equal(copies.preview, { days: [], devices: [] });
  assert.is(await logEnd(), endBefore, 'a dry run sends nothing');
  assert.equal(await replayGroups(), []);
});

test('how far back a replay reaches: the earliest record fi.raw.v1 holds and its retention; the command prints them with a dry run for a file of IMEIs', async () => {
  const reach = await replayReach(rig.transport);
  assert.ok(reach.earliest !== null && reach.earliest >= suiteStart && reach.earliest < fedAt, `earliest ${reach.earliest}`);
  assert.ok(reach.retentionMs !== null && reach.retentionMs > 0);
  assert.equal(await replayGroups(), []);

  const perDevice = rawPerDevice();
  const raw = fixtureNames().length - 2;
  const [[a, na], [b, nb]] = Object.entries(perDevice) as [[string, number], [string, number]];
  const dir = mkdtempSync(join(tmpdir(), 'replay-imeis-'));
  const file = join(dir, 'devices.txt');
  writeFileSync(file, `# two devices\n${a}\n\n${b}  # the second\n`);
  try {
    const cli = startFaultline(['replay', '--from-beginning', '--to', new Date(fedAt).toISOString(), '--imei', file, '--dry-run'], { ...infraEnv(), DATABASE_URL: rig.db.url });
    assert.is(await cli.exited, 0, cli.output());
    const out = cli.output();
    assert.match(out, `the earliest it holds was appended ${new Date(reach.earliest!).toISOString()}: a replay reaches back to there`);
    assert.match(out, /fi\.raw\.v1 keeps check-ins for [0-9.]+ days/);
    assert.match(out, `for 2 devices`);
    assert.match(out, `${a}: ${na} records`);
    assert.match(out, `${b}: ${nb} records`);
    assert.match(out, `dry run: ${na! + nb!} of ${raw} records would be sent through the running pipeline again, ${raw - na! - nb!} of other devices left out; nothing was sent`);
    // A value that is neither an IMEI nor a file: a clear error, nothing read.
    const bad = startFaultline(['replay', '--from-beginning', '--imei', 'no-such-file.txt', '--dry-run'], { ...infraEnv(), DATABASE_URL: rig.db.url });
    assert.is(await bad.exited, 1);
    assert.match(bad.output(), '"no-such-file.txt" is neither an IMEI (digits) nor a file of IMEIs');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(await replayGroups(), []);
  rig.pipe = await startTestPipeline(rig.transport, rig.db.pool);
});

test.run();
