// Settings drift's pure rule (fleet/settings-drift.ts): which settings differ from the group profile, what was
// expected and reported, and since which day (the first day of the latest run of differing days). No servers.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { profileOf, settingsDrift, type ReportedDay } from '../../fleet/settings-drift.js';

const day = (d: string, values: ReportedDay['values']): ReportedDay => ({ day: d, values });

test('no profile, or reports that match it: no drift', () => {
  const days = [day('2026-11-01', { version: '4.2.1', Permfault_Reset_Hours: 8 })];
  assert.equal(settingsDrift({}, days), []);
  assert.equal(settingsDrift({ version: '4.2.1', Permfault_Reset_Hours: 8 }, days), []);
});

test('numbers compare as numbers: 8 and "8.0" are one value', () => {
  assert.equal(settingsDrift({ Permfault_Reset_Hours: 8 }, [day('2026-11-01', { Permfault_Reset_Hours: '8.0' })]), []);
  assert.equal(settingsDrift({ Block_Reset: 0 }, [day('2026-11-01', { Block_Reset: 1 })]),
    [{ setting: 'Block_Reset', expected: '0', reported: '1', sinceDay: '2026-11-01' }]);
});

test('a firmware change: dated from the first day of the latest differing run, whatever order the days come in', () => {
  const days = [
    day('2026-11-03', { version: '4.3.0' }), day('2026-11-01', { version: '4.2.1' }), day('2026-11-05', { version: '4.3.1' }),
    day('2026-11-02', { version: '4.3.0' }), day('2026-11-04', { version: '4.2.1' }),
  ];
  // 02-03 differed, 04 matched again, 05 differs: the run that counts began on the 5th.
  assert.equal(settingsDrift({ version: '4.2.1' }, days), [{ setting: 'version', expected: '4.2.1', reported: '4.3.1', sinceDay: '2026-11-05' }]);
  // Two different wrong values in a row are one run: drifting since the first of them.
  const run = [day('2026-11-01', { version: '4.2.1' }), day('2026-11-02', { version: '4.3.0' }), day('2026-11-03', { version: '4.3.1' })];
  assert.equal(settingsDrift({ version: '4.2.1' }, run), [{ setting: 'version', expected: '4.2.1', reported: '4.3.1', sinceDay: '2026-11-02' }]);
});

test('a day that left the field out neither breaks nor ends a run; the latest report decides', () => {
  const days = [day('2026-11-01', { Current_Reset: 'Manual' }), day('2026-11-02', { Current_Reset: null }), day('2026-11-03', { Current_Reset: 'Manual' })];
  assert.equal(settingsDrift({ Current_Reset: 'Auto' }, days), [{ setting: 'Current_Reset', expected: 'Auto', reported: 'Manual', sinceDay: '2026-11-01' }]);
  // The latest day said nothing: the day before it stands.
  assert.equal(settingsDrift({ Current_Reset: 'Auto' }, [day('2026-11-01', { Current_Reset: 'Auto' }), day('2026-11-02', {})]), []);
  // Never reported: nothing to compare.
  assert.equal(settingsDrift({ Current_Reset: 'Auto' }, [day('2026-11-01', {})]), []);
});

test('several settings at once, listed in the settings table order', () => {
  const days = [day('2026-11-01', { version: '4.3.0', Tempfault_Reset_Hours: '4', Permfault_Reset_Hours: 8 })];
  assert.equal(settingsDrift({ version: '4.2.1', Tempfault_Reset_Hours: '2', Permfault_Reset_Hours: 8 }, days).map((d) => d.setting), ['version', 'Tempfault_Reset_Hours']);
});

test('a run reaching back to the first day read keeps the day an earlier assessment recorded, for the same expected value only', () => {
  const days = [day('2026-11-10', { version: '4.3.0' }), day('2026-11-11', { version: '4.3.0' })];
  const before = [{ setting: 'version' as const, expected: '4.2.1', reported: '4.3.0', sinceDay: '2026-10-01' }];
  assert.equal(settingsDrift({ version: '4.2.1' }, days, before)[0]!.sinceDay, '2026-10-01');
  // The profile changed since: the old run is not this one.
  assert.equal(settingsDrift({ version: '4.2.2' }, days, before)[0]!.sinceDay, '2026-11-10');
  // The run began inside the window: the window's day wins.
  const inside = [day('2026-11-09', { version: '4.2.1' }), ...days];
  assert.equal(settingsDrift({ version: '4.2.1' }, inside, before)[0]!.sinceDay, '2026-11-10');
});

test('a device in several groups: each setting from the first group (by GroupID) that sets it', () => {
  const profile = profileOf([
    { GroupID: 'b', profile: { version: '4.3.0', Current_Reset: 'Auto' } },
    { GroupID: 'a', profile: { version: '4.2.1', Current_Reset: null } },
  ]);
  assert.equal(profile, { version: '4.2.1', Current_Reset: 'Auto' });
});

test.run();
