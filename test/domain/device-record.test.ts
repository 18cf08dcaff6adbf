import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildDeviceRecord, toPreviousRecord } from '../../domain/device-record.js';
import { fixtureCheckIn } from './builders.js';

const enrichment = { CurrentName: 'North F12 Pole 40 Phase A', CurrentLat: 41.8, CurrentLong: -87.7 };

test('spec 2.2: model replaced, enrichment added, Ongoing_fault and ActualOngoingFault computed, reported kept', () => {
  const device = fixtureCheckIn('010-permanent-after-low-current.json').device_data;
  const record = buildDeviceRecord({ device, model: 'FCI-3000-STD', enrichment, actualOngoingFault: 11 });
  assert.equal(
    [record.model, record.Ongoing_fault, record.ActualOngoingFault, record.ReportedOngoingFault, record.CurrentName, record.CurrentLat, record.CurrentLong],
    ['FCI-3000-STD', 11, 11, 4, 'North F12 Pole 40 Phase A', 41.8, -87.7],
  );
  // every other device_data field unchanged
  for (const [key, value] of Object.entries(device)) {
    if (key !== 'model' && key !== 'Ongoing_fault') assert.equal((record as unknown as Record<string, unknown>)[key], value, key);
  }
  assert.is(device.Ongoing_fault, 4, 'input not changed');
});

test('toPreviousRecord keeps what later check-ins need', () => {
  const device = fixtureCheckIn('009-low-current-before.json').device_data;
  const record = buildDeviceRecord({ device, model: 'FCI-3000', enrichment, actualOngoingFault: 0 });
  assert.equal(toPreviousRecord(record), { date: '2026-11-20T15:00:00.000Z', model: 'FCI-3000', AverageCurrent1m: 0.4, ActualOngoingFault: 0 });
});

test.run();
