// The spool-directory source end to end on a temp dir: fixtures in, records out of the in-process
// transport, files removed only after the publish resolved.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { appendFile, mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { spoolSource } from '../../stages/bridge/spool-source.js';
import type { Log } from '../../stages/bridge/source.js';
import type { Transport } from '../../stages/runtime/transport/transport.js';
import { expectedFor, messageBody, messageFiles } from '../domain/fixtures.js';
import { waitFor } from '../../support/wait-for.js';
import { cleanupList } from './cleanup.js';
import { collect } from './collector.js';
import { flakyTransport } from './flaky-transport.js';

const FAST = { initialMs: 5, maxMs: 40 };
/** One batch at a time, as on Kafka (in-process several wait for the pipeline at once): counts per batch. */
const ONE_BY_ONE = { inFlightBatches: 1 };
const quiet: Log = () => {};
const cleanup = cleanupList();

async function inbox(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'faultline-spool-'));
  cleanup.add(() => rm(dir, { recursive: true, force: true }));
  return dir;
}



async function writeFixtures(dir: string): Promise<string[]> {
  const files = messageFiles();
  for (const f of files) await writeFile(join(dir, f), messageBody(f));
  return files;
}

test.after.each(() => cleanup.run());

test('every fixture is published (raw keyed by IMEI, 013 and 014 dead-lettered) and its file removed', async () => {
  const dir = await inbox();
  const files = await writeFixtures(dir);
  // Not queue messages: a writer's temp file, a dotfile, another extension. They must stay untouched.
  const ignored = ['.hidden.json', '015-being-written.json.tmp', 'notes.txt'];
  for (const f of ignored) await writeFile(join(dir, f), '{"device_data": {"IMEINumber": "861000000000999"}}');

  const t = cleanup.transport();
  const reader = await collect(t);
  const source = await cleanup.start(spoolSource({ transport: t, dir, log: quiet, backoff: FAST }));
  await waitFor('all fixture files removed', async () => (await readdir(dir)).filter((f) => f.endsWith('.json') && !f.startsWith('.')).length === 0, { timeoutMs: 5_000 });
  await waitFor('all records read back', () => reader.raw.length + reader.dlq.length >= files.length, { timeoutMs: 5_000 });
  await source.stop();
  await reader.stop();

  assert.equal((await readdir(dir)).sort(), [...ignored].sort());
  // 013 does not parse: held (still being written?) until it stood unchanged for a second, then dead-lettered.
  const { held, ...counts } = source.stats();
  assert.equal(counts, { received: 14, published: 12, deadLettered: 2, deleted: 14, errors: 0 });
  assert.ok(held! >= 1, 'the malformed file was held before it was dead-lettered');

  assert.is(reader.raw.length, 12);
  for (const r of reader.raw) {
    const expected = expectedFor(r.value.messageId);
    assert.is(r.key, expected.imei ?? expected.unregistered, r.value.messageId);
    assert.is(r.value.body, messageBody(r.value.messageId), 'body unchanged');
    assert.is(r.value.source, 'spool');
  }
  assert.equal(reader.raw.map((r) => r.value.messageId).sort(), files.filter((f) => !/^01[34]/.test(f)));
  // One device's messages stay in file-name order (one partition per key, one send per batch in order).
  const device100 = reader.raw.filter((r) => r.key === '861000000000100').map((r) => r.value.messageId);
  assert.equal(device100, ['002-permanent-fault.json', '003-permanent-fault-resent.json', '011-old-event-ids-dropped.json']);

  const dead = Object.fromEntries(reader.dlq.map((r) => [r.value.messageId, r.value]));
  assert.is(dead['013-malformed-json.json']?.code, 'MALFORMED');
  assert.is(dead['014-missing-imei.json']?.code, 'INVALID');
  assert.match(dead['014-missing-imei.json']?.reason ?? '', /device_data\.IMEINumber/);
  assert.is(dead['013-malformed-json.json']?.body, messageBody('013-malformed-json.json'));
  assert.equal(reader.dlq.map((r) => r.key).sort(), ['013-malformed-json.json', '014-missing-imei.json']);
});

test('a producer that rejects: nothing is removed, and nothing is published', async () => {
  const dir = await inbox();
  const files = await writeFixtures(dir);
  const inner = cleanup.transport();
  const t = flakyTransport(inner, Infinity);
  const reader = await collect(inner);
  const source = await cleanup.start(spoolSource({ transport: t, dir, log: quiet, backoff: FAST, ...ONE_BY_ONE }));
  await waitFor('three failed sends', () => t.calls >= 3, { timeoutMs: 5_000 });
  await source.stop();
  await sleep(50);
  await reader.stop();

  assert.equal((await readdir(dir)).sort(), files, 'every file is still there');
  const stats = source.stats();
  assert.is(stats.deleted, 0);
  assert.is(stats.published, 0);
  assert.ok(stats.errors >= 3);
  assert.is(reader.raw.length + reader.dlq.length, 0);
  // The retries resend the same first batch: files are taken in name order, 10 at a time.
  assert.equal(t.batches[0]!.map((m) => (m.value as { messageId: string }).messageId), files.slice(0, 10));
});

test('after the producer recovers every message is published exactly once', async () => {
  const dir = await inbox();
  const files = await writeFixtures(dir);
  const inner = cleanup.transport();
  const t = flakyTransport(inner, 3);
  const reader = await collect(inner);
  const source = await cleanup.start(spoolSource({ transport: t, dir, log: quiet, backoff: FAST, ...ONE_BY_ONE }));
  await waitFor('inbox empty', async () => (await readdir(dir)).length === 0, { timeoutMs: 5_000 });
  await waitFor('records read back', () => reader.raw.length + reader.dlq.length >= files.length, { timeoutMs: 5_000 });
  await sleep(50);
  await source.stop();
  await reader.stop();

  const ids = [...reader.raw, ...reader.dlq].map((r) => r.value.messageId).sort();
  assert.equal(ids, files, 'each file once, none twice');
  const stats = source.stats();
  assert.is(stats.errors, 3);
  assert.is(stats.deleted, files.length);
  assert.is(stats.received, files.length + 30, 'the failed first batch was read four times');
});

test('files that arrive later (write, then rename) are picked up; temp files are not', async () => {
  const dir = await inbox();
  const t = cleanup.transport();
  const reader = await collect(t);
  const source = await cleanup.start(spoolSource({ transport: t, dir, log: quiet, backoff: FAST }));
  await sleep(150); // idle: waiting on fs.watch / the 100 ms poll

  const tmp = join(dir, 'a-001.tmp');
  await writeFile(tmp, messageBody('001-plain-checkin.json'));
  await sleep(250);
  assert.is(reader.raw.length, 0, 'a .tmp file is never read');
  await rename(tmp, join(dir, 'a-001.json'));
  await waitFor('the renamed file published', () => reader.raw.length === 1, { timeoutMs: 2_000 });
  await waitFor('the renamed file removed', async () => (await readdir(dir)).length === 0, { timeoutMs: 2_000 });
  await source.stop();
  await reader.stop();
  assert.is(reader.raw[0]!.value.messageId, 'a-001.json');
});

test('an unreadable entry is skipped (logged once); the rest go through', async () => {
  const dir = await inbox();
  await mkdir(join(dir, '000-a-directory.json'));
  await writeFile(join(dir, '001.json'), messageBody('001-plain-checkin.json'));
  const logs: string[] = [];
  const t = cleanup.transport();
  const reader = await collect(t);
  const source = await cleanup.start(spoolSource({ transport: t, dir, log: (_level, message) => logs.push(message), backoff: FAST }));
  await waitFor('001 published', () => reader.raw.length === 1, { timeoutMs: 2_000 });
  await sleep(300); // several polls: the directory entry must not be retried and logged again
  await source.stop();
  await reader.stop();
  assert.equal((await readdir(dir)).sort(), ['000-a-directory.json']);
  assert.is(logs.length, 1);
  assert.match(logs[0]!, /could not be read/);
  assert.is(source.stats().errors, 1);
});

for (const [what, firstPart] of [['cut short', 0.5], ['empty', 0]] as const) {
  test(`a file written in place in two parts (first ${what}) is published once, complete, never dead-lettered`, async () => {
    const dir = await inbox();
    const t = cleanup.transport();
    const reader = await collect(t);
    const source = await cleanup.start(spoolSource({ transport: t, dir, log: quiet, backoff: FAST }));
    const body = messageBody('001-plain-checkin.json');
    const cut = Math.floor(body.length * firstPart);
    await writeFile(join(dir, 'slow.json'), body.slice(0, cut));
    // The spool has looked at the incomplete file (and left it) before the writer goes on.
    await waitFor('the incomplete file held', () => source.stats().held! >= 1, { timeoutMs: 5_000 });
    await appendFile(join(dir, 'slow.json'), body.slice(cut));
    await waitFor('the file published', () => reader.raw.length + reader.dlq.length >= 1, { timeoutMs: 5_000 });
    await waitFor('the file removed', async () => (await readdir(dir)).length === 0, { timeoutMs: 5_000 });
    await sleep(200);
    await source.stop();
    await reader.stop();
    assert.is(reader.dlq.length, 0, 'nothing dead-lettered');
    assert.is(reader.raw.length, 1, 'published once');
    assert.is(reader.raw[0]!.value.body, body, 'the whole body');
  });
}

test('stop() lets the batch in flight finish: its files are removed, the rest stay', async () => {
  const dir = await inbox();
  for (let i = 0; i < 25; i++) await writeFile(join(dir, `m-${String(i).padStart(3, '0')}.json`), messageBody('001-plain-checkin.json'));
  const inner = cleanup.transport();
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => { release = r; });
  const slow: Transport = { ...inner, producer: () => ({ send: async (m) => { await gate; await inner.producer().send(m); } }) };
  const source = await cleanup.start(spoolSource({ transport: slow, dir, log: quiet, backoff: FAST, ...ONE_BY_ONE }));
  await sleep(50);
  const stopped = source.stop();
  release();
  await stopped;
  assert.is((await readdir(dir)).length, 15, 'the first batch of 10 was finished, nothing after it');
  assert.is(source.stats().deleted, 10);
});

test.run();
