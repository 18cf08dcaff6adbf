// The reach rule (domain/reach.ts; docs/decisions.md#reach-applied-once) on plain facts: organisation, role,
// groups, soft delete, and the instant a device joined its organisation.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mayRead, type ReachCaller, type ReachDevice } from '../../domain/reach.js';

const admin: ReachCaller = { org: 'north', role: 'admin', groups: [] };
const eastUser: ReachCaller = { org: 'north', role: 'user', groups: ['north-east'] };
const southAdmin: ReachCaller = { org: 'south', role: 'admin', groups: [] };
const device = (over: Partial<ReachDevice> = {}): ReachDevice => ({ org: 'north', deleted: false, groups: ['north-east'], organizationSince: -Infinity, ...over });
const MOVE = Date.parse('2026-11-22T00:00:00Z');

test('an admin reaches every non-deleted device of the organisation, whatever its groups', () => {
  assert.ok(mayRead(admin, device()));
  assert.ok(mayRead(admin, device({ groups: [] })));
  assert.ok(mayRead(admin, device({ groups: ['north-west'] })));
});

test('a user reaches only devices linked to one of the user\'s groups', () => {
  assert.ok(mayRead(eastUser, device()));
  assert.ok(mayRead(eastUser, device({ groups: ['north-west', 'north-east'] })));
  assert.not.ok(mayRead(eastUser, device({ groups: ['north-west'] })));
  assert.not.ok(mayRead(eastUser, device({ groups: [] })));
  assert.not.ok(mayRead({ ...eastUser, groups: [] }, device()), 'a user without groups reaches nothing');
});

test('nobody reaches another organisation\'s device, a deleted device or an unregistered IMEI', () => {
  assert.not.ok(mayRead(southAdmin, device()));
  assert.not.ok(mayRead({ ...eastUser, org: 'south' }, device()), 'the same group name in another organisation does not count');
  assert.not.ok(mayRead(admin, device({ deleted: true })));
  assert.not.ok(mayRead(eastUser, device({ deleted: true })));
  assert.not.ok(mayRead(admin, undefined));
});

test('a device that never moved: its whole history is readable', () => {
  assert.ok(mayRead(admin, device(), Date.parse('2001-01-01T00:00:00Z')));
});

test('a moved device: records from the move on, none from before (the earlier organisation\'s)', () => {
  const moved = device({ org: 'south', groups: ['south-east'], organizationSince: MOVE });
  assert.ok(mayRead(southAdmin, moved), 'the device itself is in the new organisation\'s reach');
  assert.ok(mayRead(southAdmin, moved, MOVE), 'a record at the move instant');
  assert.ok(mayRead(southAdmin, moved, MOVE + 1));
  assert.not.ok(mayRead(southAdmin, moved, MOVE - 1));
  assert.not.ok(mayRead({ org: 'south', role: 'user', groups: ['south-east'] }, moved, MOVE - 1));
  assert.not.ok(mayRead(admin, moved, MOVE - 1), 'the earlier organisation no longer reaches the device at all');
});

test('a time-bound question still needs the device in reach', () => {
  const moved = device({ organizationSince: MOVE });
  assert.not.ok(mayRead(eastUser, { ...moved, groups: ['north-west'] }, MOVE + 1));
  assert.not.ok(mayRead(admin, { ...moved, deleted: true }, MOVE + 1));
});

test.run();
