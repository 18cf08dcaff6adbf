// Banks with a real opendnp3 master: an organisation with more than 8,000 devices (rows inserted in bulk,
// slots from dnp3_slots) is served as two logical outstations on one mutual-TLS connection, bank 0 at
// link address 10 and bank 1 at 11. The master has one association per address on the same channel,
// integrity-polls both, and checks a bank-1 device's values (at its local indexes, from address 11),
// a bank-0 device's (from 10), and a check-in stored afterwards reaching address 11 as events.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestDatabase } from '../../../support/database.js';
import type { TestDatabase } from '../../../support/database.js';
import { testKeyring } from '../../../support/reference-data.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { startDnp3Service } from '../../../dnp3/service.js';
import { assignSlots } from '../../../points/store.js';
import { BANK_SLOTS, analogIndex, binaryIndex, localSlot } from '../../../dnp3/data/point-map.js';
import { Yadnp3Master, eventsUntil, find } from '../../../support/dnp3-master.js';
import { devCerts } from '../../helpers/dev-certs.js';

const certs = devCerts('dnp3-banks-');

const ORG = 'north';
const DEVICES = BANK_SLOTS + 100; // 8,100: bank 0 full (slots 0..7999), bank 1 slots 8000..8099
const BANK0_SLOT = 5;
const BANK1_SLOT = BANK_SLOTS + 5; // local slot 5 in bank 1: the same indexes as BANK0_SLOT, other outstation
const LOCAL = localSlot(BANK1_SLOT);

let db: TestDatabase;
let service: Awaited<ReturnType<typeof startDnp3Service>>;
let master: Yadnp3Master;
const imeiOf = new Map<number, string>();

async function checkIn(imei: string, date: string, aof: number, current: number): Promise<void> {
  await db.pool.query(
    `insert into device_records ("IMEINumber", "date", "Ongoing_fault", "ActualOngoingFault", "ReportedOngoingFault", "BatteryOrLine", "AverageCurrent1m")
     values ($1, $2, $3, $3, $3, 0, $4)`,
    [imei, date, aof, current],
  );
}

test.before(async () => {
  db = await createTestDatabase('dnp3_banks');
  await importReferenceData(db.pool, {
    organizations: [{ OrganizationID: ORG, name: 'North Utility' }], powerLines: [], groups: [], users: [], devices: [],
    integrations: [{ id: 'north-scada', OrganizationID: ORG, kind: 'dnp3', channel: 'A', masterIdentity: 'scada.north.example', outstationAddress: 10, masterAddress: 1 }],
  }, { keyring: testKeyring() });
  // 8,100 devices in one statement; slots follow DeviceID order.
  await db.pool.query(
    `insert into device_information ("IMEINumber", "OrganizationID", "Real_Name")
     select '3589900' || lpad(g::text, 8, '0'), $1, 'Bank pole ' || g from generate_series(0, $2 - 1) g order by g`,
    [ORG, DEVICES],
  );
  await assignSlots(db.pool, ORG);
  const { rows } = await db.pool.query<{ slot: number; imei: string }>(
    `select slot, "IMEINumber" as imei from dnp3_slots where "OrganizationID" = $1 and slot = any($2)`, [ORG, [BANK0_SLOT, BANK1_SLOT]],
  );
  for (const r of rows) imeiOf.set(r.slot, r.imei);
  assert.is(imeiOf.size, 2);
  await checkIn(imeiOf.get(BANK0_SLOT)!, '2026-11-20T14:00:00Z', 0, 11.5);
  await checkIn(imeiOf.get(BANK1_SLOT)!, '2026-11-20T14:00:00Z', 0, 22.5);
  service = await startDnp3Service({
    pool: db.pool, port: 0, host: '127.0.0.1', offlineAfterHours: 1e6,
    tlsFiles: certs.outstation,
  });
  const indexes = [0, ...[0, 1, 7].map((k) => binaryIndex(LOCAL, k)), ...[0, 1].map((k) => analogIndex(LOCAL, k))];
  master = new Yadnp3Master(service.server.port, certs.master('north'), { addresses: [10, 11], indexes });
});

test.after(async () => {
  await master?.stop();
  await service?.close();
  await db?.drop();
  certs.remove();
});

test('start-up integrity polls of both addresses: bank 0 full at 10, bank 1 at 11, each device at its local indexes', async () => {
  const a = await master.startup();
  const statics = (address: string) => [a.counts[address]!.binary, a.counts[address]!.analog];
  assert.equal(statics('10'), [8 * BANK_SLOTS, 8 * BANK_SLOTS + 1]);
  assert.equal(statics('11'), [8 * (DEVICES - BANK_SLOTS), 8 * (DEVICES - BANK_SLOTS) + 1]);
  assert.is(find(a, 'analog', analogIndex(LOCAL, 1), false, 10)!.value, 11.5); // slot 5
  assert.is(find(a, 'analog', analogIndex(LOCAL, 1), false, 11)!.value, 22.5); // slot 8005
  assert.is(find(a, 'binary', binaryIndex(LOCAL, 7), false, 11)!.value, true); // line powered
  assert.ok(find(a, 'analog', 0, false, 10) && find(a, 'analog', 0, false, 11), 'a heartbeat in each bank');
  assert.is(a.iins['11']!.restart, false); // the start-up sequence ran on the bank-1 association too
});

test('a fault stored for the bank-1 device reaches address 11 as events with the device time; address 10 sees none', async () => {
  await checkIn(imeiOf.get(BANK1_SLOT)!, '2026-11-20T14:05:00Z', 4, 812);
  const a = await eventsUntil(master, (r) => find(r, 'binary', binaryIndex(LOCAL, 1), true, 11) !== undefined && find(r, 'analog', analogIndex(LOCAL, 0), true, 11) !== undefined);
  const permanent = find(a, 'binary', binaryIndex(LOCAL, 1), true, 11)!;
  assert.equal([permanent.value, permanent.time], [true, Date.parse('2026-11-20T14:05:00Z')]);
  assert.is(find(a, 'analog', analogIndex(LOCAL, 0), true, 11)!.value, 4);
  assert.is(a.items.filter((i) => i.event && i.outstation === 10 && i.index !== 0).length, 0);
  const poll = await master.command('integrity', 11);
  assert.is(find(poll, 'binary', binaryIndex(LOCAL, 0), false, 11)!.value, true);
  assert.is(find(poll, 'analog', analogIndex(LOCAL, 1), false, 11)!.value, 812);
  const bank0 = await master.command('integrity', 10);
  assert.is(find(bank0, 'binary', binaryIndex(LOCAL, 0), false, 10)!.value, false);
});

test.run();
