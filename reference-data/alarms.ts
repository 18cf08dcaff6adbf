// Alarm recipients and rules in the import file (docs/decisions.md#import-format, #alarm-routing), read by the
// same field readers as every other kind, so `faultline import` and the admin API (api/alarms/) accept
// exactly the same rows and say the same thing about a bad one.
//
//   "alarmRecipients": [{"id": "north-desk", "OrganizationID": "north", "name": "Ops desk", "channel": "email",
//                        "address": "ops@north.example", "capPerDay": 100},
//                       {"id": "north-hook", "OrganizationID": "north", "channel": "webhook",
//                        "address": "https://hooks.north.example/faultline", "secret": "..."}],
//   "alarmRules": [{"id": "north-faults", "OrganizationID": "north", "class": "operations",
//                   "what": ["permanent", "temporary"], "where": {"powerLines": ["north-F12"]},
//                   "who": ["north-desk", "north-hook"], "when": {"days": [1,2,3,4,5], "from": "07:00", "to": "17:00"},
//                   "escalation": {"afterMinutes": 15, "roster": ["north-oncall"]}}]
import type pg from 'pg';
import type { WebhookAllowance } from '../config/settings.js';
import { ALARM_CLASSES, RULE_KIND_IDS, currentKindId, type AlarmClass } from '../domain/alarm-kinds.js';
import { FLEET_DIGEST_EVERY } from '../domain/fleet-digest.js';
import { isHourText, type AlarmEscalation, type AlarmHours } from '../domain/alarm-rules.js';
import { webhookUrlProblem } from '../alarms/channels/target-guard.js';
import { encryptRecipientSecret, decryptRecipientSecret } from '../secrets/recipient-secret.js';
import { SecretsError } from '../secrets/errors.js';
import type { Keyring } from '../secrets/keyring.js';
import { FieldReader, isPlainObject, show, type ProblemList } from './field-reader.js';
import { countedUpsert } from './upsert-hierarchy.js';
import type { AlarmRecipientInput, AlarmRuleInput, KindCounts } from './model.js';

export const RECIPIENT_KEYS = ['id', 'OrganizationID', 'name', 'channel', 'address', 'capPerDay', 'secret', 'fleetDigest'];
export const RULE_KEYS = ['id', 'OrganizationID', 'name', 'class', 'what', 'where', 'who', 'when', 'escalation', 'enabled'];
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9]{6,16}$/;

export interface AlarmReadOptions { webhookAllow: readonly WebhookAllowance[] }

export function readAlarmRecipient(r: FieldReader, { webhookAllow }: AlarmReadOptions): AlarmRecipientInput | undefined {
  r.onlyKeys(RECIPIENT_KEYS);
  const id = r.id('id');
  const OrganizationID = r.id('OrganizationID');
  const name = r.string('name');
  const channel = r.oneOf('channel', ['email', 'sms', 'webhook'] as const, true);
  const address = r.string('address', { required: true, max: 2000 });
  const capPerDay = r.number('capPerDay', { min: 1, max: 100_000, integer: true });
  const fleetDigest = r.oneOf('fleetDigest', FLEET_DIGEST_EVERY, false);
  let secret: AlarmRecipientInput['secret'] | undefined = 'keep';
  if (Object.hasOwn(r.obj, 'secret')) secret = r.obj.secret === null ? null : r.string('secret', { required: true, max: 500, secret: true });
  if (typeof secret === 'string' && secret !== 'keep' && secret.length < 16) { r.list.add(r.at('secret'), 'must be at least 16 characters'); secret = undefined; }
  if (channel && channel !== 'webhook' && typeof secret === 'string' && secret !== 'keep') r.list.add(r.at('secret'), 'only webhook recipients have a secret');
  if (channel && address) {
    if (channel === 'email' && !EMAIL.test(address)) r.list.add(r.at('address'), `${show(address)} must be an e-mail address`);
    if (channel === 'sms' && !PHONE.test(address)) r.list.add(r.at('address'), `${show(address)} must be a phone number (digits, optional leading +)`);
    if (channel === 'webhook') {
      const problem = webhookUrlProblem(address, webhookAllow);
      if (problem) r.list.add(r.at('address'), `${show(address)} ${problem}`);
    }
  }
  // A digest is a page of counts: e-mail and webhooks carry it, an SMS would cut it (docs/decisions.md#fleet-digest).
  if (channel === 'sms' && fleetDigest) r.list.add(r.at('fleetDigest'), 'is sent by e-mail or webhook, not SMS');
  if (id === undefined || OrganizationID === undefined || name === undefined || !channel || !address || capPerDay === undefined || secret === undefined || fleetDigest === undefined) return undefined;
  return { id, OrganizationID, name, channel, address, capPerDay, secret, fleetDigest: fleetDigest ?? null };
}

function readWhere(r: FieldReader): AlarmRuleInput['where'] | undefined {
  const value = r.obj.where;
  if (value === undefined || value === null) return { powerLines: [], groups: [], devices: [] };
  if (!isPlainObject(value)) { r.list.add(r.at('where'), 'must be an object with powerLines, groups, devices'); return undefined; }
  const w = new FieldReader(value, r.at('where'), r.list);
  w.onlyKeys(['powerLines', 'groups', 'devices']);
  const powerLines = w.idList('powerLines');
  const groups = w.idList('groups');
  const devices = w.idList('devices');
  return powerLines && groups && devices ? { powerLines, groups, devices } : undefined;
}

function readWhen(r: FieldReader): AlarmHours | null | undefined {
  const value = r.obj.when;
  if (value === undefined || value === null || value === 'always') return null;
  if (!isPlainObject(value)) { r.list.add(r.at('when'), 'must be "always" or {days, from, to}'); return undefined; }
  const w = new FieldReader(value, r.at('when'), r.list);
  w.onlyKeys(['days', 'from', 'to']);
  const days = value.days ?? [1, 2, 3, 4, 5, 6, 7];
  const okDays = Array.isArray(days) && days.length > 0 && days.every((d) => Number.isInteger(d) && (d as number) >= 1 && (d as number) <= 7);
  if (!okDays) r.list.add(w.at('days'), 'must be a non-empty list of days 1 (Monday) to 7 (Sunday)');
  const from = w.string('from', { required: true, pattern: /^([01]\d|2[0-3]):[0-5]\d$/, patternText: 'HH:MM' });
  const to = w.string('to', { required: true, pattern: /^([01]\d|2[0-3]):[0-5]\d$/, patternText: 'HH:MM' });
  if (!okDays || !from || !to || !isHourText(from) || !isHourText(to)) return undefined;
  return { days: [...new Set(days as number[])].sort(), from, to };
}

function readEscalation(r: FieldReader, cls: AlarmClass | null | undefined): AlarmEscalation | null | undefined {
  const value = r.obj.escalation;
  if (value === undefined || value === null) return null;
  if (!isPlainObject(value)) { r.list.add(r.at('escalation'), 'must be {afterMinutes, roster}'); return undefined; }
  const e = new FieldReader(value, r.at('escalation'), r.list);
  e.onlyKeys(['afterMinutes', 'roster']);
  const afterMinutes = e.number('afterMinutes', { min: 1, max: 10_080, integer: true });
  const roster = e.idList('roster');
  if (afterMinutes === null) e.list.add(e.at('afterMinutes'), 'is required');
  if (roster && roster.length === 0) e.list.add(e.at('roster'), 'must name at least one recipient');
  if (cls === 'maintenance') r.list.add(r.at('escalation'), 'only operations rules escalate');
  if (afterMinutes === undefined || afterMinutes === null || !roster || roster.length === 0) return undefined;
  return { afterMinutes, roster };
}

export function readAlarmRule(r: FieldReader): AlarmRuleInput | undefined {
  r.onlyKeys(RULE_KEYS);
  const id = r.id('id');
  const OrganizationID = r.id('OrganizationID');
  const name = r.string('name');
  const cls = r.oneOf('class', ALARM_CLASSES, true);
  const what = r.idList('what')?.map(currentKindId);
  if (what) {
    if (what.length === 0) r.list.add(r.at('what'), `must name at least one kind: ${RULE_KIND_IDS.join(', ')}`);
    what.forEach((k, i) => { if (!RULE_KIND_IDS.includes(k)) r.list.add(`${r.at('what')}[${i}]`, `${show(k)} is not an alarm kind; expected ${RULE_KIND_IDS.join(', ')}`); });
  }
  const where = readWhere(r);
  const who = r.idList('who');
  if (who && who.length === 0) r.list.add(r.at('who'), 'must name at least one recipient');
  const when = readWhen(r);
  const escalation = readEscalation(r, cls);
  const enabled = r.boolean('enabled', true);
  if (id === undefined || OrganizationID === undefined || name === undefined || !cls || !what || !where || !who || when === undefined || escalation === undefined || enabled === undefined) return undefined;
  return { id, OrganizationID, name, class: cls, what, where, who, when, escalation, enabled };
}

/** Rule references: recipients of the same organisation (in the file or stored), power lines and groups of it. */
export async function checkAlarmReferences(
  client: pg.ClientBase, recipients: readonly AlarmRecipientInput[], rules: readonly AlarmRuleInput[], pathOf: (row: object, i: number) => string,
  declaredPowerLines: ReadonlyMap<string, string | null> = new Map(), declaredGroups: ReadonlyMap<string, string | null> = new Map(),
): Promise<{ path: string; message: string }[]> {
  const problems: { path: string; message: string }[] = [];
  if (rules.length === 0) return problems;
  const ids = [...new Set(rules.flatMap((r) => [...r.who, ...(r.escalation?.roster ?? [])]))];
  const stored = new Map((await client.query<{ id: string; org: string }>('select id, "OrganizationID" as org from alarm_recipients where id = any($1)', [ids])).rows.map((r) => [r.id, r.org]));
  const lines = new Map((await client.query<{ id: string; org: string }>('select "Id" as id, "OrganizationID" as org from power_lines where "Id" = any($1)', [rules.flatMap((r) => r.where.powerLines)])).rows.map((r) => [r.id, r.org]));
  const groups = new Map((await client.query<{ id: string; org: string }>('select "GroupID" as id, "OrganizationID" as org from groups where "GroupID" = any($1)', [rules.flatMap((r) => r.where.groups)])).rows.map((r) => [r.id, r.org]));
  const inFile = new Map(recipients.map((r) => [r.id, r.OrganizationID]));
  rules.forEach((rule, i) => {
    const path = pathOf(rule, i);
    const check = (where: string, kind: string, id: string, org: string | null | undefined) => {
      if (org === undefined) problems.push({ path: where, message: `${show(id)} is not ${kind} in this file or the database` });
      else if (org !== null && org !== rule.OrganizationID) problems.push({ path: where, message: `${kind.replace(/^an? /, '')} ${show(id)} belongs to organization ${show(org)}, not ${show(rule.OrganizationID)}` });
    };
    rule.who.forEach((id, j) => check(`${path}.who[${j}]`, 'an alarm recipient', id, inFile.get(id) ?? stored.get(id)));
    rule.escalation?.roster.forEach((id, j) => check(`${path}.escalation.roster[${j}]`, 'an alarm recipient', id, inFile.get(id) ?? stored.get(id)));
    rule.where.powerLines.forEach((id, j) => check(`${path}.where.powerLines[${j}]`, 'a power line', id, declaredPowerLines.has(id) ? declaredPowerLines.get(id) : lines.get(id)));
    rule.where.groups.forEach((id, j) => check(`${path}.where.groups[${j}]`, 'a group', id, declaredGroups.has(id) ? declaredGroups.get(id) : groups.get(id)));
  });
  return problems;
}

function sealSecret(row: AlarmRecipientInput, stored: { secret: Buffer | null; secret_key_id: string | null } | undefined, keyring: Keyring | undefined): { c: Buffer | null; k: string | null } {
  const kept = { c: stored?.secret ?? null, k: stored?.secret_key_id ?? null };
  if (row.secret === 'keep') return kept;
  if (row.secret === null) return { c: null, k: null };
  if (!keyring) throw new SecretsError('NO_SECRET_KEYS', `alarm recipient "${row.id}": a secret needs a secret key`);
  if (kept.c && kept.k) {
    try {
      const plain = decryptRecipientSecret(keyring, row.id, kept.c, kept.k);
      const same = plain.toString('utf8') === row.secret;
      plain.fill(0);
      if (same) return kept;
    } catch (err) {
      if (!(err instanceof SecretsError)) throw err;
    }
  }
  const sealed = encryptRecipientSecret(keyring, row.id, row.secret);
  return { c: sealed.ciphertext, k: sealed.keyId };
}

export async function upsertAlarmRecipients(client: pg.ClientBase, rows: readonly AlarmRecipientInput[], keyring: Keyring | undefined): Promise<KindCounts> {
  if (rows.length === 0) return { inserted: 0, updated: 0, unchanged: 0 };
  const stored = new Map((await client.query<{ id: string; secret: Buffer | null; secret_key_id: string | null }>(
    'select id, secret, secret_key_id from alarm_recipients where id = any($1) for update', [rows.map((r) => r.id)])).rows.map((r) => [r.id, r]));
  const sealed = rows.map((r) => sealSecret(r, stored.get(r.id), keyring));
  return countedUpsert(client, `
    insert into alarm_recipients (id, "OrganizationID", name, channel, address, cap_per_day, secret, secret_key_id, fleet_digest)
    select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::bytea[], $8::text[], $9::text[])
    on conflict (id) do update set "OrganizationID" = excluded."OrganizationID", name = excluded.name, channel = excluded.channel,
      address = excluded.address, cap_per_day = excluded.cap_per_day, secret = excluded.secret, secret_key_id = excluded.secret_key_id,
      fleet_digest = excluded.fleet_digest, updated_at = now()
    where (alarm_recipients."OrganizationID", alarm_recipients.name, alarm_recipients.channel, alarm_recipients.address, alarm_recipients.cap_per_day, alarm_recipients.secret, alarm_recipients.secret_key_id, alarm_recipients.fleet_digest)
          is distinct from (excluded."OrganizationID", excluded.name, excluded.channel, excluded.address, excluded.cap_per_day, excluded.secret, excluded.secret_key_id, excluded.fleet_digest)
    returning (xmax = 0) as inserted`,
  [rows.map((r) => r.id), rows.map((r) => r.OrganizationID), rows.map((r) => r.name), rows.map((r) => r.channel), rows.map((r) => r.address),
    rows.map((r) => r.capPerDay), sealed.map((s) => s.c), sealed.map((s) => s.k), rows.map((r) => r.fleetDigest)], rows.length);
}

export async function upsertAlarmRules(client: pg.ClientBase, rows: readonly AlarmRuleInput[]): Promise<KindCounts> {
  if (rows.length === 0) return { inserted: 0, updated: 0, unchanged: 0 };
  return countedUpsert(client, `
    insert into alarm_rules (id, "OrganizationID", name, class, kinds, power_lines, groups, devices, recipients, hours, escalation, enabled)
    select u.id, u.org, u.name, u.class,
           array(select jsonb_array_elements_text(u.what)), array(select jsonb_array_elements_text(u.pl)), array(select jsonb_array_elements_text(u.gr)),
           array(select jsonb_array_elements_text(u.dv)), array(select jsonb_array_elements_text(u.who)), u.hours, u.esc, u.enabled
      from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::jsonb[], $7::jsonb[], $8::jsonb[], $9::jsonb[], $10::jsonb[], $11::jsonb[], $12::boolean[])
        as u(id, org, name, class, what, pl, gr, dv, who, hours, esc, enabled)
    on conflict (id) do update set "OrganizationID" = excluded."OrganizationID", name = excluded.name, class = excluded.class, kinds = excluded.kinds,
      power_lines = excluded.power_lines, groups = excluded.groups, devices = excluded.devices, recipients = excluded.recipients,
      hours = excluded.hours, escalation = excluded.escalation, enabled = excluded.enabled, updated_at = now()
    where (alarm_rules."OrganizationID", alarm_rules.name, alarm_rules.class, alarm_rules.kinds, alarm_rules.power_lines, alarm_rules.groups, alarm_rules.devices,
           alarm_rules.recipients, alarm_rules.hours, alarm_rules.escalation, alarm_rules.enabled)
          is distinct from (excluded."OrganizationID", excluded.name, excluded.class, excluded.kinds, excluded.power_lines, excluded.groups, excluded.devices,
           excluded.recipients, excluded.hours, excluded.escalation, excluded.enabled)
    returning (xmax = 0) as inserted`,
  [rows.map((r) => r.id), rows.map((r) => r.OrganizationID), rows.map((r) => r.name), rows.map((r) => r.class),
    rows.map((r) => JSON.stringify(r.what)), rows.map((r) => JSON.stringify(r.where.powerLines)), rows.map((r) => JSON.stringify(r.where.groups)),
    rows.map((r) => JSON.stringify(r.where.devices)), rows.map((r) => JSON.stringify(r.who)), rows.map((r) => (r.when ? JSON.stringify(r.when) : null)),
    rows.map((r) => (r.escalation ? JSON.stringify(r.escalation) : null)), rows.map((r) => r.enabled)], rows.length);
}

export type { ProblemList };
