// Time (issue 21 point 2): the opendnp3 master (PyPI yadnp3) synchronises our outstation with its LAN
// procedure (RECORD_CURRENT_TIME, WRITE g50v3) and its non-LAN one (DELAY_MEASURE, WRITE g50v1). The master's
// clock runs an hour ahead of the host's, so the test can tell which clock the outstation keeps: after the
// sync NEED_TIME is clear and the outstation's clock is the master's, while events keep the device's own
// timestamps (docs/decisions.md#dnp3-time).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { Temporal } from 'temporal-polyfill';
import { Iin } from '../../../dnp3/app/header.js';
import { applySnapshot, sizeBanks } from '../../../dnp3/data/apply.js';
import { analogIndex, binaryIndex, type DeviceSnapshot } from '../../../dnp3/data/point-map.js';
import { Outstation } from '../../../dnp3/outstation/outstation.js';
import { startDnp3Server } from '../../../dnp3/server.js';
import { Yadnp3Master, find } from '../../../support/dnp3-master.js';
import { devCerts } from '../../helpers/dev-certs.js';
/** OFFLINE_AFTER_HOURS 26 as the communication-lost ceiling, the default floor (domain/checkin-clock.ts). */
const CLOCK_26H = { floorS: 300, ceilingS: 26 * 3600 };

const certs = devCerts('dnp3-time-');
const { pem } = certs;
const HOUR = 3_600_000;

const device = (date: number, over: Partial<DeviceSnapshot> = {}): DeviceSnapshot => ({
  imei: '861000000000100', slot: 0, name: 'North F7 Pole 41', date, actualOngoingFault: 0, batteryOrLine: 0, averageCurrent1m: 120.5,
  prefaultCurrent: 118, faultCurrent: null, faultTime: null, peakCurrent24h: 210, averageCurrent1h: 121.25, batteryMcu: 3.5, temperature: 21, ...over,
});

const test = suite('dnp3 time');
test.after(() => certs.remove());

for (const mode of ['LAN', 'NonLAN'] as const) {
  test(`${mode} time sync by the opendnp3 master clears NEED_TIME; the outstation keeps the master's clock, events the device's`, async () => {
    const outstation = new Outstation({ unsolicited: true });
    const banks = [outstation];
    const now = Date.now();
    sizeBanks(banks, 1, false);
    applySnapshot(banks, device(now - 60_000), now, CLOCK_26H, false);
    assert.ok(outstation.iin() & Iin.NEED_TIME, 'NEED_TIME before any sync');
    const server = await startDnp3Server({
      port: 0, host: '127.0.0.1',
      transport: { tls: { key: readFileSync(pem('outstation.test-key')), cert: readFileSync(pem('outstation.test')), ca: [readFileSync(pem('ca'))] } },
      integrations: () => [{ id: 'north-scada', organizationId: 'north', masterIdentity: 'scada.north.example', outstationAddress: 10, masterAddress: 1, unsolicited: true, tlsMinVersion: 'TLSv1.2', certificateMode: 'ca', analogOnly: false }],
      outstationsFor: () => banks,
    });
    const master = new Yadnp3Master(server.port, certs.master('north'), { timeSync: mode, clockOffsetMs: HOUR });
    try {
      const a = await master.startup();
      assert.is(a.iin.needTime, false, 'NEED_TIME cleared by the sync');
      assert.is(outstation.iin() & Iin.NEED_TIME, 0);
      const skew = outstation.clockMs(Temporal.Now.instant()) - (Date.now() + HOUR);
      assert.ok(Math.abs(skew) < 1_000, `outstation clock within 1 s of the master's (${skew} ms)`);
      // A fault the device stamped with its own clock (an hour behind the master's) keeps that time.
      const faultAt = Date.now() - 5_000;
      applySnapshot(banks, device(faultAt, { actualOngoingFault: 4, faultCurrent: 812, faultTime: faultAt - 500 }), Date.now(), CLOCK_26H, false);
      const e = await master.command('events');
      assert.is(find(e, 'binary', binaryIndex(0, 0), true)!.time, faultAt);
      assert.is(find(e, 'analog', analogIndex(0, 3), true)!.time, faultAt - 500);
      assert.is(e.iin.needTime, false);
    } finally {
      await master.stop();
      await server.close();
    }
  });
}

test.run();
