// The alarm router's plan (domain/alarm-routing-plan.ts), pure: who hears of a raise, an end, an escalation
// and a storm's digest, with which class, and what a masked organisation's people read.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AlarmRule, StormLimits } from '../../domain/alarm-rules.js';
import {
  alarmLink, digestStep, planClear, planDigest, planEscalations, planRaise, routingRules, stormsStarting,
  type AlarmFact, type PlanRecipient, type RoutingOrg, type StormFact,
} from '../../domain/alarm-routing-plan.js';

const MIN = 60_000;
const NOW = Date.UTC(2026, 0, 5, 10, 0); // a Monday, 10:00 UTC
const rule = (over: Partial<AlarmRule> = {}): AlarmRule => ({
  id: 'r', OrganizationID: 'o', name: null, class: 'operations', kinds: ['permanent'], powerLines: [], groups: [], devices: [], recipients: ['x'], hours: null, escalation: null, enabled: true, ...over,
});
const alarm = (over: Partial<AlarmFact> = {}): AlarmFact => ({
  id: 7, OrganizationID: 'o', IMEINumber: '1', kind: 'permanent', PowerLineID: 'F1', class: null, detail: {},
  raised_at: new Date(NOW - 5 * MIN), cleared_at: null, groups: ['g1'], timezone: 'UTC', Real_Name: 'Pole 7', ...over,
});
const people = (...ids: string[]) => new Map(ids.map((id): [string, PlanRecipient] => [id, { id, OrganizationID: 'o' }]));
const org = (rules: AlarmRule[], masked = false, recipients = people('x', 'y', 'z')): RoutingOrg => ({ rules: routingRules(rules, masked), recipients, masked });
const to = (messages: { recipient: PlanRecipient }[]) => messages.map((m) => m.recipient.id);
const limits: StormLimits = { threshold: 3, windowMs: 10 * MIN };

test('routing rules: disabled ones are left out; a masked organisation\'s class kinds read as fault', () => {
  assert.equal(routingRules([rule({ id: 'a' }), rule({ id: 'b', enabled: false })], false).map((r) => r.id), ['a']);
  assert.equal(routingRules([rule({ kinds: ['permanent', 'low-battery'] })], true)[0]!.kinds, ['fault', 'low-battery']);
  // Masked: a rule written for the class word `fault` matches a permanent fault's alarm.
  assert.is(planRaise(alarm(), org([rule({ kinds: ['fault'] })], true), false, NOW, null).messages.length, 1);
});

test('a raise: class operations over maintenance, none when no rule matches', () => {
  const both = org([rule({ id: 'm', class: 'maintenance', recipients: ['y'] }), rule({ id: 'p', recipients: ['x'] })]);
  const plan = planRaise(alarm(), both, false, NOW, null);
  assert.is(plan.class, 'operations');
  // Each rule's recipients hear with that rule's class; raises count against the daily cap.
  assert.equal(plan.messages.map((m) => [m.recipient.id, m.payload.class, m.kind, m.dedupKey, m.lane, m.capped]), [
    ['y', 'maintenance', 'raised', 'raised:7', '1', true], ['x', 'operations', 'raised', 'raised:7', '1', true],
  ]);
  assert.is(planRaise(alarm(), org([rule({ class: 'maintenance' })]), false, NOW, null).class, 'maintenance');
  const none = planRaise(alarm({ kind: 'low-battery' }), both, false, NOW, null);
  assert.equal([none.class, none.messages], [null, []]);
});

test('a raise: only rules within their hours send; unknown recipients are skipped; in a storm nobody hears but the class is set', () => {
  const hours = { days: [1], from: '11:00', to: '17:00' };
  const o = org([rule({ id: 'late', hours, recipients: ['y'] }), rule({ id: 'now', recipients: ['x', 'gone'] })]);
  assert.equal(to(planRaise(alarm(), o, false, NOW, null).messages), ['x']);
  assert.equal(to(planRaise(alarm({ timezone: 'Europe/Berlin' }), o, false, NOW, null).messages), ['y', 'x']); // 11:00 in Berlin: both
  const stormy = planRaise(alarm(), o, true, NOW, null);
  assert.equal([stormy.class, stormy.messages], ['operations', []]);
});

test('a raise\'s payload: the alarm, its device name, and a link when the portal has an address', () => {
  const [m] = planRaise(alarm({ detail: { deviceName: 'From detail' } }), org([rule()]), false, NOW, 'https://portal.example/').messages;
  assert.equal(m!.payload, {
    type: 'raised', alarmId: 7, OrganizationID: 'o', kind: 'permanent', label: m!.payload.label, class: 'operations', IMEINumber: '1',
    deviceName: 'From detail', PowerLineID: 'F1', raisedAt: new Date(NOW - 5 * MIN).toISOString(), clearedAt: null,
    link: 'https://portal.example/alarms?alarm=7',
  });
  assert.is(planRaise(alarm(), org([rule()]), false, NOW, null).messages[0]!.payload.deviceName, 'Pole 7');
  assert.is(alarmLink(null), null);
  assert.is(alarmLink('https://p'), 'https://p/alarms');
});

test('a masked organisation\'s messages name no class', () => {
  const [m] = planRaise(alarm(), org([rule({ kinds: ['fault'] })], true), false, NOW, null).messages;
  assert.is.not(m!.payload.kind, 'permanent');
  assert.not.ok(JSON.stringify(m!.payload).includes('ermanent'), JSON.stringify(m!.payload));
  const [unmasked] = planRaise(alarm(), org([rule()]), false, NOW, null).messages;
  assert.is(unmasked!.payload.kind, 'permanent');
});

test('an end goes to whoever was told of the raise and is still a recipient; none in a storm; not capped', () => {
  const o = org([rule()]);
  const cleared = alarm({ cleared_at: new Date(NOW) });
  const plan = planClear(cleared, o, ['y', 'gone', 'z'], false, null);
  assert.equal(plan.map((m) => [m.recipient.id, m.kind, m.dedupKey, m.capped, m.payload.clearedAt]), [
    ['y', 'cleared', 'cleared:7', false, new Date(NOW).toISOString()], ['z', 'cleared', 'cleared:7', false, new Date(NOW).toISOString()],
  ]);
  assert.equal(planClear(cleared, o, ['y'], true, null), []);
});

test('escalation: each roster step due of a matching operations rule, once per step', () => {
  const escalation = { afterMinutes: 2, roster: ['y', 'z', 'gone'] };
  const o = org([rule({ id: 'e', escalation }), rule({ id: 'm', class: 'maintenance', escalation })]);
  const plan = planEscalations(alarm({ raised_at: new Date(NOW - 5 * MIN) }), o, NOW, null);
  assert.equal(plan.map((m) => [m.recipient.id, m.dedupKey, m.payload.step, m.payload.class, m.kind]), [
    ['y', 'escalated:7:e:0', 1, 'operations', 'escalated'], ['z', 'escalated:7:e:1', 2, 'operations', 'escalated'],
  ]);
  assert.equal(planEscalations(alarm({ raised_at: new Date(NOW - MIN) }), o, NOW, null), []);
  assert.equal(planEscalations(alarm({ kind: 'low-battery' }), o, NOW, null), []);
});

test('storms: start above the threshold in the window, not again while one lasts', () => {
  assert.equal(stormsStarting(new Map([['a', 4], ['b', 3], ['c', 5]]), new Set(['c']), limits), ['a']);
  assert.equal(stormsStarting(new Map(), new Set(['c']), limits), []);
});

test('digests: one per window while the storm lasts, a closing one once a window stays calm', () => {
  const s: StormFact = { OrganizationID: 'o', started_at: new Date(NOW - 20 * MIN), digest_at: new Date(NOW - 4 * MIN), digests: 2 };
  assert.is(digestStep(s, 5, NOW, limits), 'wait');
  assert.is(digestStep({ ...s, digest_at: new Date(NOW - 10 * MIN) }, 5, NOW, limits), 'digest');
  assert.is(digestStep(s, 0, NOW, limits), 'end');
});

test('a digest: every recipient of a rule matching an alarm of the storm, counting the period\'s alarms its rules matched', () => {
  const s: StormFact = { OrganizationID: 'o', started_at: new Date(NOW - 20 * MIN), digest_at: new Date(NOW - 10 * MIN), digests: 2 };
  const o = org([rule({ id: 'p', recipients: ['x'] }), rule({ id: 'b', class: 'maintenance', kinds: ['low-battery'], recipients: ['y'] })]);
  const early = alarm({ id: 1, raised_at: new Date(NOW - 15 * MIN) });
  const battery = alarm({ id: 2, kind: 'low-battery', raised_at: new Date(NOW - 15 * MIN) });
  const recent = [alarm({ id: 3, PowerLineID: 'F1' }), alarm({ id: 4, PowerLineID: 'F1' }), alarm({ id: 5, PowerLineID: 'F2' })];
  const plan = planDigest(s, false, recent, [early, battery, ...recent], o, NOW, null);
  assert.equal(plan.map((m) => [m.recipient.id, m.kind, m.dedupKey, m.lane, m.payload.total, m.payload.counts]), [
    ['x', 'digest', `digest:${s.started_at.toISOString()}:2`, 'digest', 3, [{ PowerLineID: 'F1', class: 'operations', count: 2 }, { PowerLineID: 'F2', class: 'operations', count: 1 }]],
    ['y', 'digest', `digest:${s.started_at.toISOString()}:2`, 'digest', 0, []], // told of the storm, nothing of theirs since the last digest
  ]);
  assert.equal([plan[0]!.payload.from, plan[0]!.payload.to, plan[0]!.payload.alarmId], [s.digest_at.toISOString(), new Date(NOW).toISOString(), null]);
  const closing = planDigest(s, true, [], [early], o, NOW, null);
  assert.equal(closing.map((m) => [m.recipient.id, m.kind, m.payload.type, m.payload.total]), [['x', 'digest-end', 'digest-end', 0]]);
  // Outside a rule's hours its recipients hear no digest.
  const night = org([rule({ hours: { days: [1], from: '20:00', to: '22:00' } })]);
  assert.equal(planDigest(s, false, recent, recent, night, NOW, null), []);
});

test.run();
