// The Postgres side of the outstation on the real database: stable slots, the point map route's data,
// and a stored check-in reaching the event buffer within a second through LISTEN/NOTIFY.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestDatabase } from '../../../support/database.js';
import type { TestDatabase } from '../../../support/database.js';
import { Outstation } from '../../../dnp3/outstation/outstation.js';
import { Dnp3Feed } from '../../../dnp3/data/feed.js';
import { assignSlots, slotDevices } from '../../../points/store.js';
import { analogIndex, binaryIndex, pointMapRows } from '../../../dnp3/data/point-map.js';

let db: TestDatabase;
const ORG = 'north';

async function device(imei: string): Promise<void> {
  await db.pool.query(`insert into device_information ("IMEINumber", "OrganizationID", "Real_Name") values ($1, $2, $3)`, [imei, ORG, `Pole ${imei.slice(-2)}`]);
}

async function checkIn(imei: string, date: string, aof: number, current: number): Promise<number> {
  const { rows } = await db.pool.query<{ RecordID: number }>(
    `insert into device_records ("IMEINumber", "date", "Ongoing_fault", "ActualOngoingFault", "ReportedOngoingFault", "BatteryOrLine", "AverageCurrent1m")
     values ($1, $2, $3, $3, $3, 0, $4) returning "RecordID"`,
    [imei, date, aof, current],
  );
  return rows[0]!.RecordID;
}

test.before(async () => {
  db = await createTestDatabase('dnp3_feed');
  await db.pool.query(`insert into organizations ("OrganizationID", name) values ('north', 'North'), ('south', 'South')`);
  await device('861000000000101');
  await device('861000000000102');
});

test.after(async () => {
  await db.drop();
});

test('slots: assigned once in device order, stable when devices are added, never reused', async () => {
  await assignSlots(db.pool, ORG);
  await assignSlots(db.pool, ORG);
  await device('861000000000103');
  await assignSlots(db.pool, ORG);
  assert.equal((await slotDevices(db.pool, ORG)).map((d) => [d.imei, d.slot]), [['861000000000101', 0], ['861000000000102', 1], ['861000000000103', 2]]);
  await db.pool.query(`update device_information set deleted_at = now() where "IMEINumber" = '861000000000102'`);
  await device('861000000000104');
  await assignSlots(db.pool, ORG);
  assert.equal((await slotDevices(db.pool, ORG)).map((d) => d.slot), [0, 2, 3]);
  const rows = pointMapRows(await slotDevices(db.pool, ORG));
  assert.ok(rows.some((r) => r.type === 'binary' && r.index === binaryIndex(3, 0) && r.imei === '861000000000104'));
});

test('a stored check-in reaches the event buffer by LISTEN/NOTIFY, not by the poll, with the device time', async () => {
  await checkIn('861000000000101', '2026-11-20T14:00:00Z', 0, 100);
  const outstation = new Outstation({ unsolicited: false });
  // Poll far apart so only the notification can make the deadline.
  const feed = new Dnp3Feed({ pool: db.pool, organizationId: ORG, banks: [outstation], analogOnly: false, offlineAfterHours: 1e6, pollMs: 60_000 });
  await feed.start();
  try {
    assert.is(outstation.db.get('analog', analogIndex(0, 1))!.value, 100);
    const before = outstation.events.size();
    const t0 = Date.now();
    await checkIn('861000000000101', '2026-11-20T14:05:00Z', 4, 812);
    // The poll runs once a minute, so an event well inside that can only have come by the notification.
    while (outstation.events.size() === before && Date.now() - t0 < 30_000) await new Promise((r) => setTimeout(r, 10));
    assert.ok(outstation.events.size() > before, `event by notification, before the 60 s poll (${Date.now() - t0} ms)`);
    assert.equal(outstation.db.get('binary', binaryIndex(0, 1)), { flags: 1, value: 1, time: Date.parse('2026-11-20T14:05:00Z') });
    assert.is(outstation.db.get('analog', analogIndex(0, 0))!.value, 4);
  } finally {
    await feed.stop();
  }
});

test("another organisation's outstation never holds this organisation's devices", async () => {
  const south = new Outstation({ unsolicited: false });
  const feed = new Dnp3Feed({ pool: db.pool, organizationId: 'south', banks: [south], analogOnly: false, offlineAfterHours: 26, pollMs: 60_000 });
  await feed.start();
  await feed.stop();
  assert.is(south.db.count('binary'), 0);
  assert.is(south.db.count('analog'), 1); // only the heartbeat
});

test('past 8,000 slots the feed adds bank 1 (a new outstation) and applies the device to it at its local indexes', async () => {
  await db.pool.query(
    `insert into device_information ("IMEINumber", "OrganizationID", "Real_Name")
     select '8620000' || lpad(g::text, 8, '0'), 'south', 'South ' || g from generate_series(0, 9) g order by g`,
  );
  const banks = [new Outstation({ unsolicited: false })];
  const feed = new Dnp3Feed({ pool: db.pool, organizationId: 'south', banks, createOutstation: () => new Outstation({ unsolicited: false }), analogOnly: false, offlineAfterHours: 1e6, pollMs: 60_000 });
  await feed.start();
  try {
    assert.is(banks.length, 1);
    await db.pool.query(
      `insert into device_information ("IMEINumber", "OrganizationID", "Real_Name")
       select '8620000' || lpad(g::text, 8, '0'), 'south', 'South ' || g from generate_series(10, 8004) g order by g`,
    );
    const { rows } = await db.pool.query<{ imei: string }>(`select '8620000' || lpad('8002', 8, '0') as imei`);
    await checkIn(rows[0]!.imei, '2026-11-20T14:00:00Z', 4, 77); // notifies: the feed assigns slots 10..8004, bank 1 appears
    const t0 = Date.now();
    while ((banks.length < 2 || banks[1]!.db.get('analog', analogIndex(2, 1))?.value !== 77) && Date.now() - t0 < 60_000) await new Promise((r) => setTimeout(r, 20));
    assert.is(banks.length, 2);
    assert.equal([banks[0]!.db.count('binary'), banks[1]!.db.count('binary'), banks[1]!.db.count('analog')], [64_000, 40, 41]);
    const slot = (await db.pool.query<{ slot: number }>(`select slot from dnp3_slots where "IMEINumber" = $1`, [rows[0]!.imei])).rows[0]!.slot;
    assert.is(slot, 8002);
    assert.is(banks[1]!.db.get('analog', analogIndex(2, 1))!.value, 77); // local slot 2
    assert.is(banks[1]!.db.get('binary', binaryIndex(2, 1))!.value, 1);
    assert.is(banks[1]!.db.get('analog', 0)!.flags & 1, 1); // bank 1's heartbeat runs
  } finally {
    await feed.stop();
  }
});

test.run();
