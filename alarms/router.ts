// The alarm router (issue 20 points 1, 4, 5): turns each raise and end of an alarm into alarm outbox rows for
// the recipients of the organisation's matching rules, within their hours and caps; during a storm, digests
// instead; escalates unacknowledged operations alarms along a roster. One router at a time across every
// process (a transaction-scoped advisory lock; the others skip the round), and each alarm_changes row is
// marked routed in the same transaction as the rows it made, so every change is routed exactly once.
import type pg from 'pg';
import type { AlarmSettings } from '../config/settings.js';
import { withTransaction } from '../db/transaction.js';
import { ALARM_CLASSES, alarmLabel, maskedRuleKinds, type AlarmClass } from '../domain/alarm-kinds.js';
import { digestCounts, digestDue, escalationStepsDue, ruleMatches, stormStep, underCap, withinHours, type AlarmRule, type StormLimits } from '../domain/alarm-rules.js';
import { maskedAlarmPayload, type AlarmPayload, type MessageKind } from '../domain/alarm-message.js';
import { readRecipients, readRules, type StoredRecipient } from './store.js';

const ROUTER_LOCK = 0x616c726d; // "alrm"

interface AlarmRow {
  id: number; OrganizationID: string; IMEINumber: string; kind: string; PowerLineID: string | null; class: AlarmClass | null;
  detail: Record<string, unknown>; raised_at: Date; cleared_at: Date | null; groups: string[]; timezone: string; Real_Name: string | null;
}
interface ChangeRow extends AlarmRow { change_id: number; change: 'raised' | 'cleared' }

const ALARM_COLUMNS = `a.id, a."OrganizationID", a."IMEINumber", a.kind, a."PowerLineID", a.class, a.detail, a.raised_at, a.cleared_at,
  o.timezone, d."Real_Name",
  coalesce(array(select l."GroupID" from group_device_links l where l."DeviceID" = d."DeviceID"), '{}') as groups`;
const ALARM_JOINS = `join organizations o on o."OrganizationID" = a."OrganizationID"
  left join device_information d on d."IMEINumber" = a."IMEINumber"`;

export interface RouteResult { routed: number; messages: number; suppressed: number; escalations: number; digests: number; skipped: boolean }

/** `masked`: the organisation's MaskFaultDetails: its rules read class kinds as `fault`, its messages name no class. */
interface Org { rules: AlarmRule[]; recipients: Map<string, StoredRecipient>; masked: boolean }

export function alarmLink(settings: Pick<AlarmSettings, 'portalUrl'>, alarmId?: number): string | null {
  if (!settings.portalUrl) return null;
  return `${settings.portalUrl.replace(/\/$/, '')}/alarms${alarmId ? `?alarm=${alarmId}` : ''}`;
}

function payloadOf(a: AlarmRow, type: MessageKind, settings: AlarmSettings, extra: Partial<AlarmPayload> = {}): AlarmPayload {
  return {
    type, alarmId: a.id, OrganizationID: a.OrganizationID, kind: a.kind, label: alarmLabel(a.kind), class: a.class,
    IMEINumber: a.IMEINumber, deviceName: (a.detail.deviceName as string | null | undefined) ?? a.Real_Name, PowerLineID: a.PowerLineID,
    raisedAt: a.raised_at.toISOString(), clearedAt: a.cleared_at?.toISOString() ?? null, link: alarmLink(settings, a.id), ...extra,
  };
}

const placeOf = (a: AlarmRow) => ({ kind: a.kind, IMEINumber: a.IMEINumber, PowerLineID: a.PowerLineID, groups: a.groups });

/** Operations when any matching rule says so, else maintenance, else null (no rule matches). */
function classOf(rules: readonly AlarmRule[]): AlarmClass | null {
  for (const c of ALARM_CLASSES) if (rules.some((r) => r.class === c)) return c;
  return null;
}

export async function routeAlarms(pool: pg.Pool, settings: AlarmSettings, nowMs: number): Promise<RouteResult> {
  const result: RouteResult = { routed: 0, messages: 0, suppressed: 0, escalations: 0, digests: 0, skipped: false };
  const now = new Date(nowMs);
  const storm: StormLimits = { threshold: settings.stormThreshold, windowMs: settings.stormWindowMinutes * 60_000 };
  return withTransaction(pool, async (client) => {
    const { rows: [lock] } = await client.query<{ ok: boolean }>('select pg_try_advisory_xact_lock($1) as ok', [ROUTER_LOCK]);
    if (!lock?.ok) { result.skipped = true; return result; } // another process routes; its transaction ends with nothing done

    const orgs = new Map<string, Org>();
    const org = async (id: string): Promise<Org> => {
      let o = orgs.get(id);
      if (!o) {
        const masked = (await client.query<{ m: boolean }>('select "MaskFaultDetails" as m from organizations where "OrganizationID" = $1', [id])).rows[0]?.m ?? false;
        const rules = (await readRules(client, id)).filter((r) => r.enabled).map((r) => (masked ? { ...r, kinds: maskedRuleKinds(r.kinds) } : r));
        o = { rules, recipients: new Map((await readRecipients(client, id)).map((r) => [r.id, r])), masked };
        orgs.set(id, o);
      }
      return o;
    };
    // Messages each recipient was sent in the last 24 h (the cap), counted once and kept up to date below.
    const sent = new Map<string, number>((await client.query<{ recipient_id: string; n: number }>(
      `select recipient_id, count(*)::int as n from alarm_outbox where suppressed is null and created_at > $1::timestamptz - interval '24 hours' group by 1`, [now])).rows.map((r) => [r.recipient_id, r.n]));

    const insert = async (recipient: StoredRecipient, kind: MessageKind, dedupKey: string, lane: string, unmasked: AlarmPayload, { capped = false } = {}): Promise<void> => {
      // Every message is made here: a masked organisation's people read no class (docs/decisions.md#masking).
      const payload = (await org(recipient.OrganizationID)).masked ? maskedAlarmPayload(unmasked) : unmasked;
      const cap = recipient.capPerDay ?? settings.capPerDay;
      const over = capped && !underCap(sent.get(recipient.id) ?? 0, cap);
      const { rowCount } = await client.query(
        `insert into alarm_outbox ("OrganizationID", recipient_id, alarm_id, kind, lane, dedup_key, payload, suppressed, created_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9) on conflict (recipient_id, dedup_key) do nothing`,
        [recipient.OrganizationID, recipient.id, payload.alarmId, kind, lane, dedupKey, JSON.stringify(payload), over ? 'cap' : null, now]);
      if (!rowCount) return;
      if (over) { result.suppressed++; return; }
      sent.set(recipient.id, (sent.get(recipient.id) ?? 0) + 1);
      result.messages++;
    };

    // Storms: alarms raised in the last window, per organisation.
    const raisedInWindow = new Map((await client.query<{ org: string; n: number }>(
      `select a."OrganizationID" as org, count(*)::int as n from alarm_changes c join alarms a on a.id = c.alarm_id
        where c.change = 'raised' and c.at > $1::timestamptz - $2 * interval '1 millisecond' and c.at <= $1::timestamptz group by 1`, [now, storm.windowMs])).rows.map((r) => [r.org, r.n]));
    const storms = new Map((await client.query<{ OrganizationID: string; started_at: Date; digest_at: Date; digests: number }>(
      'select "OrganizationID", started_at, digest_at, digests from alarm_storms for update')).rows.map((r) => [r.OrganizationID, r]));
    for (const id of new Set([...raisedInWindow.keys(), ...storms.keys()])) {
      const step = stormStep(storms.has(id), raisedInWindow.get(id) ?? 0, storm);
      if (step === 'start') {
        // The first digest covers the window that made the storm: those alarms were not sent one by one either.
        const from = new Date(nowMs - storm.windowMs);
        await client.query('insert into alarm_storms ("OrganizationID", started_at, digest_at) values ($1, $2, $3)', [id, now, from]);
        storms.set(id, { OrganizationID: id, started_at: now, digest_at: from, digests: 0 });
      }
    }

    // Raises and ends not routed yet, oldest first.
    const { rows: changes } = await client.query<ChangeRow>(
      `select c.id as change_id, c.change, ${ALARM_COLUMNS}
         from alarm_changes c join alarms a on a.id = c.alarm_id ${ALARM_JOINS}
        where c.routed_at is null order by c.id limit 2000`);
    for (const c of changes) {
      const o = await org(c.OrganizationID);
      const matched = o.rules.filter((r) => ruleMatches(r, placeOf(c)));
      if (c.change === 'raised') {
        c.class = classOf(matched);
        if (c.class) await client.query('update alarms set class = $2 where id = $1', [c.id, c.class]);
        // In a storm the digest tells of it; otherwise each matching rule's recipients, within its hours.
        if (!storms.has(c.OrganizationID)) {
          const payload = payloadOf(c, 'raised', settings);
          for (const rule of matched) {
            if (!withinHours(rule.hours, nowMs, c.timezone)) continue;
            for (const rid of rule.recipients) {
              const r = o.recipients.get(rid);
              if (r) await insert(r, 'raised', `raised:${c.id}`, c.IMEINumber, { ...payload, class: rule.class }, { capped: true });
            }
          }
        }
      } else if (!storms.has(c.OrganizationID)) {
        // An end goes to whoever was told of the raise (hours and caps were judged then).
        const { rows: told } = await client.query<{ recipient_id: string }>(
          `select distinct recipient_id from alarm_outbox where alarm_id = $1 and kind in ('raised', 'escalated') and suppressed is null order by 1`, [c.id]);
        for (const { recipient_id } of told) {
          const r = o.recipients.get(recipient_id);
          if (r) await insert(r, 'cleared', `cleared:${c.id}`, c.IMEINumber, payloadOf(c, 'cleared', settings));
        }
      }
      await client.query('update alarm_changes set routed_at = $2 where id = $1', [c.change_id, now]);
      result.routed++;
    }

    // Escalation: open, unacknowledged operations alarms whose raise was routed, outside storms.
    const escalating = [...new Set((await client.query<{ org: string }>(
      `select distinct "OrganizationID" as org from alarm_rules where enabled and class = 'operations' and escalation is not null`)).rows.map((r) => r.org))]
      .filter((id) => !storms.has(id));
    if (escalating.length) {
      const { rows: open } = await client.query<AlarmRow>(
        `select ${ALARM_COLUMNS} from alarms a ${ALARM_JOINS}
          where a."OrganizationID" = any($1) and a.cleared_at is null and a.acknowledged_at is null
            and exists (select 1 from alarm_changes c where c.alarm_id = a.id and c.change = 'raised' and c.routed_at is not null)`, [escalating]);
      for (const a of open) {
        const o = await org(a.OrganizationID);
        for (const rule of o.rules.filter((r) => r.class === 'operations' && r.escalation && ruleMatches(r, placeOf(a)))) {
          for (const step of escalationStepsDue(rule.escalation!, a.raised_at.getTime(), nowMs)) {
            const r = o.recipients.get(rule.escalation!.roster[step]!);
            if (!r) continue;
            const before = result.messages;
            await insert(r, 'escalated', `escalated:${a.id}:${rule.id}:${step}`, a.IMEINumber, payloadOf(a, 'escalated', settings, { step: step + 1, class: 'operations' }));
            if (result.messages > before) result.escalations++;
          }
        }
      }
    }

    // Digests: one per window while a storm lasts; a closing one when a whole window stays calm.
    for (const s of storms.values()) {
      const step = stormStep(true, raisedInWindow.get(s.OrganizationID) ?? 0, storm);
      const ending = step === 'end';
      if (!ending && !digestDue(s.digest_at.getTime(), nowMs, storm)) continue;
      const o = await org(s.OrganizationID);
      const { rows: period } = await client.query<AlarmRow>(
        `select ${ALARM_COLUMNS} from alarms a ${ALARM_JOINS} where a."OrganizationID" = $1 and a.raised_at > $2 and a.raised_at <= $3`, [s.OrganizationID, s.digest_at, now]);
      const { rows: whole } = await client.query<AlarmRow>(
        `select ${ALARM_COLUMNS} from alarms a ${ALARM_JOINS} where a."OrganizationID" = $1 and a.raised_at > $2 and a.raised_at <= $3`, [s.OrganizationID, new Date(s.started_at.getTime() - storm.windowMs), now]);
      // Who hears: every recipient of a rule that matched an alarm of the storm, within the rule's hours.
      const perRecipient = new Map<string, { recipient: StoredRecipient; alarms: { PowerLineID: string | null; class: AlarmClass }[] }>();
      for (const a of whole) {
        for (const rule of o.rules.filter((r) => ruleMatches(r, placeOf(a)) && withinHours(r.hours, nowMs, a.timezone))) {
          for (const rid of rule.recipients) {
            const r = o.recipients.get(rid);
            if (!r) continue;
            const entry = perRecipient.get(rid) ?? { recipient: r, alarms: [] };
            if (period.some((p) => p.id === a.id)) entry.alarms.push({ PowerLineID: a.PowerLineID, class: rule.class });
            perRecipient.set(rid, entry);
          }
        }
      }
      const kind: MessageKind = ending ? 'digest-end' : 'digest';
      for (const { recipient, alarms } of perRecipient.values()) {
        const payload: AlarmPayload = {
          type: kind, alarmId: null, OrganizationID: s.OrganizationID, from: s.digest_at.toISOString(), to: now.toISOString(),
          total: alarms.length, counts: digestCounts(alarms), link: alarmLink(settings),
        };
        await insert(recipient, kind, `${kind}:${s.started_at.toISOString()}:${s.digests}`, 'digest', payload);
        result.digests++;
      }
      if (ending) await client.query('delete from alarm_storms where "OrganizationID" = $1', [s.OrganizationID]);
      else await client.query('update alarm_storms set digest_at = $2, digests = digests + 1 where "OrganizationID" = $1', [s.OrganizationID, now]);
    }

    return result;
  });
}
