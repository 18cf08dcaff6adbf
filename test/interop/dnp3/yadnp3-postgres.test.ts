// End to end with the real database: fixture organisations, devices and DNP3 integrations imported, check-ins
// stored by the persist stage, the DNP3 service (Postgres feed + mutual TLS server) in front, and an opendnp3
// master per organisation checking values and device timestamps before and after a permanent fault.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestDatabase } from '../../../support/database.js';
import type { TestDatabase } from '../../../support/database.js';
import { importDemoData } from '../../../support/reference-data.js';
import { checkInOf, computed } from '../../../support/checkins.js';
import { persistBatch } from '../../../stages/persist/index.js';
import { startDnp3Service } from '../../../dnp3/service.js';
import { analogIndex, binaryIndex } from '../../../dnp3/data/point-map.js';
import { Yadnp3Master, eventsUntil, find } from '../../../support/dnp3-master.js';
import { devCerts } from '../../helpers/dev-certs.js';

const certs = devCerts('dnp3-e2e-');
const masterCerts = certs.master;

let db: TestDatabase;
let service: Awaited<ReturnType<typeof startDnp3Service>>;
let north: Yadnp3Master;

test.before(async () => {
  db = await createTestDatabase('dnp3_e2e');
  await importDemoData(db.pool);
  await persistBatch(db.pool, [computed(checkInOf('001-plain-checkin.json'))]); // 861000000000000, slot 0
  service = await startDnp3Service({
    pool: db.pool, port: 0, host: '127.0.0.1', offlineAfterHours: 1e6,
    tlsFiles: certs.outstation,
  });
  north = new Yadnp3Master(service.server.port, masterCerts('north'));
});

test.after(async () => {
  await north.stop();
  await service.close();
  await db.drop();
  certs.remove();
});

test('north integrity poll: fixture 001 values at slot 0; heartbeat at analog 0', async () => {
  const a = await north.startup();
  assert.is(find(a, 'analog', analogIndex(0, 1), false)!.value, 120.5); // AverageCurrent1m
  assert.is(find(a, 'analog', analogIndex(0, 0), false)!.value, 0); // ActualOngoingFault
  assert.is(find(a, 'binary', binaryIndex(0, 7), false)!.value, true); // line powered (BatteryOrLine 0)
  assert.ok(find(a, 'analog', 0, false), 'heartbeat');
});

test('a permanent fault stored by the persist stage reaches the master as class 1/2 events with device times', async () => {
  await persistBatch(db.pool, [computed(checkInOf('002-permanent-fault.json'))]); // 861000000000100, slot 1
  const a = await eventsUntil(north, (r) => [find(r, 'binary', binaryIndex(1, 1), true), find(r, 'analog', analogIndex(1, 0), true), find(r, 'analog', analogIndex(1, 3), true)].every(Boolean));
  const permanent = find(a, 'binary', binaryIndex(1, 1), true)!;
  assert.equal([permanent.value, permanent.time], [true, Date.parse('2026-11-20T14:05:00Z')]);
  const code = find(a, 'analog', analogIndex(1, 0), true)!;
  assert.equal([code.value, code.time], [4, Date.parse('2026-11-20T14:05:00Z')]);
  const faultCurrent = find(a, 'analog', analogIndex(1, 3), true)!;
  assert.equal([faultCurrent.value, faultCurrent.time], [812, Date.parse('2026-11-20T14:04:10Z')]);
  const after = await north.command('integrity');
  assert.is(find(after, 'binary', binaryIndex(1, 0), false)!.value, true);
});

test("the south master sees south's outstation only: none of north's values", async () => {
  const south = new Yadnp3Master(service.server.port, masterCerts('south'));
  try {
    const a = await south.startup();
    assert.ok(a.items.length > 0);
    assert.ok(!a.items.some((i) => i.value === 120.5 || i.value === 812), 'no north values');
  } finally {
    await south.stop();
  }
});

test.run();
