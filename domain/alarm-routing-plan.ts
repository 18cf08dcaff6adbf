// The alarm router's plan (issue 20 points 1, 4, 5; docs/decisions.md#alarm-routing), pure: given the facts
// alarms/router.ts read (an organisation's rules and recipients, the alarm and its device, who was told of a
// raise, the storm it is in), which class a raise gets, which messages go to whom with what payload, when a
// storm starts and what its digests say. The router reads those facts and writes what this decides, in one
// transaction; the daily cap is judged there, as each row is stored (a row already there is not counted).
import { ALARM_CLASSES, alarmLabel, maskedRuleKinds, type AlarmClass } from './alarm-kinds.js';
import { maskedAlarmPayload, type AlarmPayload, type MessageKind } from './alarm-message.js';
import { digestCounts, digestDue, escalationStepsDue, ruleMatches, stormStep, withinHours, type AlarmRule, type StormLimits } from './alarm-rules.js';

/** An alarm as the router reads it: the alarm, its organisation's zone, its device's name and groups. */
export interface AlarmFact {
  id: number; OrganizationID: string; IMEINumber: string; kind: string; PowerLineID: string | null; class: AlarmClass | null;
  detail: Record<string, unknown>; raised_at: Date; cleared_at: Date | null; groups: string[]; timezone: string; Real_Name: string | null;
}

export interface PlanRecipient { id: string; OrganizationID: string }

/** An organisation as routing sees it. `masked`: MaskFaultDetails, so its rules read class kinds as `fault` and its messages name no class. */
export interface RoutingOrg<R extends PlanRecipient = PlanRecipient> { rules: AlarmRule[]; recipients: ReadonlyMap<string, R>; masked: boolean }

/** One alarm_outbox row to store. `capped`: it counts against the recipient's daily cap and is held back over it. */
export interface PlannedMessage<R extends PlanRecipient = PlanRecipient> {
  recipient: R; kind: MessageKind; dedupKey: string; lane: string; payload: AlarmPayload; capped: boolean;
}

/** The storm in progress of an organisation (alarm_storms). */
export interface StormFact { OrganizationID: string; started_at: Date; digest_at: Date; digests: number }

/** The rules routing uses: enabled ones, with a masked organisation's class kinds read as `fault`. */
export function routingRules(rules: readonly AlarmRule[], masked: boolean): AlarmRule[] {
  return rules.filter((r) => r.enabled).map((r) => (masked ? { ...r, kinds: maskedRuleKinds(r.kinds) } : r));
}

export function alarmLink(portalUrl: string | null | undefined, alarmId?: number): string | null {
  if (!portalUrl) return null;
  return `${portalUrl.replace(/\/$/, '')}/alarms${alarmId ? `?alarm=${alarmId}` : ''}`;
}

function payloadOf(a: AlarmFact, type: MessageKind, portalUrl: string | null, extra: Partial<AlarmPayload> = {}): AlarmPayload {
  return {
    type, alarmId: a.id, OrganizationID: a.OrganizationID, kind: a.kind, label: alarmLabel(a.kind), class: a.class,
    IMEINumber: a.IMEINumber, deviceName: (a.detail.deviceName as string | null | undefined) ?? a.Real_Name, PowerLineID: a.PowerLineID,
    raisedAt: a.raised_at.toISOString(), clearedAt: a.cleared_at?.toISOString() ?? null, link: alarmLink(portalUrl, a.id), ...extra,
  };
}

const placeOf = (a: AlarmFact) => ({ kind: a.kind, IMEINumber: a.IMEINumber, PowerLineID: a.PowerLineID, groups: a.groups });

/** Operations when any matching rule says so, else maintenance, else null (no rule matches). */
function classOf(rules: readonly AlarmRule[]): AlarmClass | null {
  for (const c of ALARM_CLASSES) if (rules.some((r) => r.class === c)) return c;
  return null;
}

// Every message is made here: a masked organisation's people read no class (docs/decisions.md#masking).
function message<R extends PlanRecipient>(org: RoutingOrg<R>, recipient: R, kind: MessageKind, dedupKey: string, lane: string, payload: AlarmPayload, capped = false): PlannedMessage<R> {
  return { recipient, kind, dedupKey, lane, payload: org.masked ? maskedAlarmPayload(payload) : payload, capped };
}

/** Organisations whose storm starts now: over the threshold of raises in the window, and not in one already. */
export function stormsStarting(raisedInWindow: ReadonlyMap<string, number>, inStorm: ReadonlySet<string>, limits: StormLimits): string[] {
  const orgs = new Set([...raisedInWindow.keys(), ...inStorm]);
  return [...orgs].filter((id) => stormStep(inStorm.has(id), raisedInWindow.get(id) ?? 0, limits) === 'start');
}

/**
 * A raise: the class of its matching rules (null: none matches), and outside a storm a message to each
 * matching rule's recipients within the rule's hours, under the daily cap. In a storm the digest tells of it.
 */
export function planRaise<R extends PlanRecipient>(
  a: AlarmFact, org: RoutingOrg<R>, inStorm: boolean, nowMs: number, portalUrl: string | null,
): { class: AlarmClass | null; messages: PlannedMessage<R>[] } {
  const matched = org.rules.filter((r) => ruleMatches(r, placeOf(a)));
  const alarmClass = classOf(matched);
  const messages: PlannedMessage<R>[] = [];
  if (inStorm) return { class: alarmClass, messages };
  const payload = payloadOf({ ...a, class: alarmClass }, 'raised', portalUrl);
  for (const rule of matched) {
    if (!withinHours(rule.hours, nowMs, a.timezone)) continue;
    for (const rid of rule.recipients) {
      const r = org.recipients.get(rid);
      if (r) messages.push(message(org, r, 'raised', `raised:${a.id}`, a.IMEINumber, { ...payload, class: rule.class }, true));
    }
  }
  return { class: alarmClass, messages };
}

/** An end goes to whoever was told of the raise (`told`: hours and caps were judged then); in a storm, to nobody. */
export function planClear<R extends PlanRecipient>(a: AlarmFact, org: RoutingOrg<R>, told: readonly string[], inStorm: boolean, portalUrl: string | null): PlannedMessage<R>[] {
  if (inStorm) return [];
  const out: PlannedMessage<R>[] = [];
  for (const rid of told) {
    const r = org.recipients.get(rid);
    if (r) out.push(message(org, r, 'cleared', `cleared:${a.id}`, a.IMEINumber, payloadOf(a, 'cleared', portalUrl)));
  }
  return out;
}

/** An open, unacknowledged alarm whose raise was routed: the roster steps due of each matching operations rule. */
export function planEscalations<R extends PlanRecipient>(a: AlarmFact, org: RoutingOrg<R>, nowMs: number, portalUrl: string | null): PlannedMessage<R>[] {
  const out: PlannedMessage<R>[] = [];
  for (const rule of org.rules.filter((r) => r.class === 'operations' && r.escalation && ruleMatches(r, placeOf(a)))) {
    for (const step of escalationStepsDue(rule.escalation!, a.raised_at.getTime(), nowMs)) {
      const r = org.recipients.get(rule.escalation!.roster[step]!);
      if (r) out.push(message(org, r, 'escalated', `escalated:${a.id}:${rule.id}:${step}`, a.IMEINumber, payloadOf(a, 'escalated', portalUrl, { step: step + 1, class: 'operations' })));
    }
  }
  return out;
}

/** What a storm does this round: nothing yet, a digest (one per window), or a closing digest once a whole window stayed calm. */
export function digestStep(s: StormFact, raisedInWindow: number, nowMs: number, limits: StormLimits): 'wait' | 'digest' | 'end' {
  if (stormStep(true, raisedInWindow, limits) === 'end') return 'end';
  return digestDue(s.digest_at.getTime(), nowMs, limits) ? 'digest' : 'wait';
}

/**
 * A storm's digest: every recipient of a rule that matched an alarm of the storm (`whole`: raised since a
 * window before it started), within the rule's hours, hears the counts of the alarms raised since the last
 * digest (`period`) their rules matched.
 */
export function planDigest<R extends PlanRecipient>(
  s: StormFact, ending: boolean, period: readonly AlarmFact[], whole: readonly AlarmFact[], org: RoutingOrg<R>, nowMs: number, portalUrl: string | null,
): PlannedMessage<R>[] {
  const inPeriod = new Set(period.map((p) => p.id));
  const perRecipient = new Map<string, { recipient: R; alarms: { PowerLineID: string | null; class: AlarmClass }[] }>();
  for (const a of whole) {
    for (const rule of org.rules.filter((r) => ruleMatches(r, placeOf(a)) && withinHours(r.hours, nowMs, a.timezone))) {
      for (const rid of rule.recipients) {
        const r = org.recipients.get(rid);
        if (!r) continue;
        const entry = perRecipient.get(rid) ?? { recipient: r, alarms: [] };
        if (inPeriod.has(a.id)) entry.alarms.push({ PowerLineID: a.PowerLineID, class: rule.class });
        perRecipient.set(rid, entry);
      }
    }
  }
  const kind: MessageKind = ending ? 'digest-end' : 'digest';
  return [...perRecipient.values()].map(({ recipient, alarms }) => message(org, recipient, kind, `${kind}:${s.started_at.toISOString()}:${s.digests}`, 'digest', {
    type: kind, alarmId: null, OrganizationID: s.OrganizationID, from: s.digest_at.toISOString(), to: new Date(nowMs).toISOString(),
    total: alarms.length, counts: digestCounts(alarms), link: alarmLink(portalUrl),
  }));
}
