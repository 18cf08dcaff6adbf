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
  fleet?: Record<string, unknown>;
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

/** The fleet summary as lines: each count under the names of the objects that hold it ("silent / cluster: 3"). */
function summaryLines(value: unknown, path: string[] = []): string[] {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return Object.entries(value).flatMap(([k, v]) => summaryLines(v, [...path, k]));
  if (Array.isArray(value)) return value.flatMap((v, i) => summaryLines(v, [...path, String(i + 1)]));
  return [`  ${path.join(' / ')}: ${value === null ? '-' : String(value)}`];
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
  const field = (name: string, v: unknown) => { if (v !== undefined && v !== null && v !== '') lines.push(`${name}: ${String(v)}`); };
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
  for (const c of p.counts ?? []) lines.push(`  ${c.PowerLineID ?? '(no power line)'} / ${c.class}: ${c.count}`);
  if (p.fleet) lines.push(...summaryLines(p.fleet));
  field('Portal', p.link);
  return `${lines.join('\n')}\n`;
}
