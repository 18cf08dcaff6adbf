// What an alarm message says, per kind of message, for every channel: the webhook's JSON body, and the
// subject and text that e-mail and SMS carry. Pure; alarms/channels/ send them.
import { alarmLabel } from './alarm-kinds.js';
import type { DigestCount } from './alarm-rules.js';
import { MASKED_NONE, maskFaultClass } from './fault-masking.js';

export type MessageKind = 'raised' | 'cleared' | 'escalated' | 'digest' | 'digest-end' | 'fleet-digest';

/** The alarm as messages describe it (alarm_outbox.payload). */
export interface AlarmPayload {
  type: MessageKind;
  alarmId: number | null;
  OrganizationID: string;
  kind?: string;
  label?: string;
  class?: string | null;
  IMEINumber?: string;
  deviceName?: string | null;
  PowerLineID?: string | null;
  raisedAt?: string;
  clearedAt?: string | null;
  /** Escalation: which roster step this is (1-based). */
  step?: number;
  /** Digests: the period and its counts. */
  from?: string;
  to?: string;
  total?: number;
  counts?: DigestCount[];
  /** Fleet digests: daily or weekly, and the organisation's fleet summary as GET /api/fleet/summary answers it. */
  every?: string;
  fleet?: object;
  link?: string | null;
}

/** The message as a MaskFaultDetails organisation's people get it: the reader rules of domain/fault-masking.ts. */
export const maskedAlarmPayload = (p: AlarmPayload): AlarmPayload => maskFaultClass(p, { faultTypeNone: MASKED_NONE }) as AlarmPayload;

const device = (p: AlarmPayload) => `${p.deviceName ?? p.IMEINumber ?? ''}${p.deviceName && p.IMEINumber ? ` (${p.IMEINumber})` : ''}`;
const line = (p: AlarmPayload) => (p.PowerLineID ? ` on ${p.PowerLineID}` : '');

export function messageSubject(p: AlarmPayload): string {
  const label = p.label ?? alarmLabel(p.kind ?? '');
  switch (p.type) {
    case 'raised': return `ALARM ${label}: ${device(p)}${line(p)}`;
    case 'escalated': return `ESCALATED (unacknowledged) ${label}: ${device(p)}${line(p)}`;
    case 'cleared': return `CLEARED ${label}: ${device(p)}${line(p)}`;
    case 'digest': return `Alarm storm: ${p.total ?? 0} alarms in ${p.OrganizationID}`;
    case 'digest-end': return `Alarm storm over: ${p.total ?? 0} more alarms in ${p.OrganizationID}`;
    case 'fleet-digest': return `Fleet health ${p.every ?? ''} digest for ${p.OrganizationID}: ${p.from === p.to ? p.from : `${p.from} to ${p.to}`}`;
  }
}

/** Characters of one value on a line of a message body. */
export const LINE_VALUE_MAX = 200;
// Control characters (line breaks above all), Unicode line separators and bidirectional overrides.
const UNSAFE_IN_LINE = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/**
 * A value as one line of a message body can carry it: what breaks or reorders a line written as an escape (`\u000a`),
 * at most LINE_VALUE_MAX characters. A fleet digest lists what devices report (a firmware version), which may
 * hold a line break and a link of its own (docs/decisions.md#review-of-fleet-health-as-a-hostile-party).
 */
export function lineValue(v: unknown): string {
  const text = [...String(v).replace(UNSAFE_IN_LINE, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`)];
  return text.length <= LINE_VALUE_MAX ? text.join('') : `${text.slice(0, LINE_VALUE_MAX - 1).join('')}…`;
}

/** The fleet summary as lines: each count under the names of the objects that hold it ("silent / cluster: 3"). */
function summaryLines(value: unknown, path: string[] = []): string[] {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return Object.entries(value).flatMap(([k, v]) => summaryLines(v, [...path, k]));
  if (Array.isArray(value)) return value.flatMap((v, i) => summaryLines(v, [...path, String(i + 1)]));
  return [`  ${path.map(lineValue).join(' / ')}: ${value === null ? '-' : lineValue(value)}`];
}

/** Short enough for one or two SMS: the subject, the counts of a digest, the link. */
export function messageText(p: AlarmPayload): string {
  const parts = [messageSubject(p)];
  if (p.type === 'raised' || p.type === 'escalated') parts.push(`at ${p.raisedAt ?? ''}`);
  if (p.type === 'cleared') parts.push(`at ${p.clearedAt ?? ''}`);
  if (p.counts?.length) parts.push(p.counts.slice(0, 5).map((c) => `${c.PowerLineID ?? 'no line'} ${c.class} ${c.count}`).join('; '));
  if (p.link) parts.push(p.link);
  return parts.join(' - ');
}

/** The e-mail body: every field, one a line. */
export function messageBody(p: AlarmPayload): string {
  const lines = [messageSubject(p), ''];
  const field = (name: string, v: unknown) => { if (v !== undefined && v !== null && v !== '') lines.push(`${name}: ${lineValue(v)}`); };
  field('Alarm', p.alarmId);
  field('Kind', p.label ?? p.kind);
  field('Class', p.class);
  field('Device', device(p) || undefined);
  field('Power line', p.PowerLineID);
  field('Raised', p.raisedAt);
  field('Cleared', p.clearedAt);
  field('Escalation step', p.step);
  field('From', p.from);
  field('To', p.to);
  field('Alarms', p.total);
  for (const c of p.counts ?? []) lines.push(`  ${lineValue(c.PowerLineID ?? '(no power line)')} / ${lineValue(c.class)}: ${c.count}`);
  if (p.fleet) lines.push(...summaryLines(p.fleet));
  field('Portal', p.link);
  return `${lines.join('\n')}\n`;
}
