// Possible de-energised sections (issue 44 point 4; docs/decisions.md#silent-device-triage): what silent-device
// triage found (fleet/silence-triage.ts) made into rows of deenergised_sections (migration 0035) and their alarm.
// At most one open per section (power line and topology point); an open one follows what triage finds, and
// closes when triage no longer finds it: its indicators report again, it became part of a wider section, or a
// trip on the line made it the fault incident's outage. Never a row of `incidents`, never an OMS outage event.
// Alarm kind deenergised-section (domain/alarm-kinds.ts), raised on the point indicator through the alarm
// routing's event entry point, episode `deenergised:<id>`, cleared when the section closes.
import type pg from 'pg';
import { endEventAlarms, raiseEventAlarm, type RaiseInput } from '../alarms/raise.js';
import { failpoint } from '../config/failpoints.js';
import { DEENERGISED_SECTION } from '../domain/alarm-kinds.js';
import type { DeenergisedSection } from '../fleet/silence-triage.js';

interface OpenRow { id: string; PowerLineID: string; point_imei: string; devices: { imei: string }[] }

export interface SectionChanges { opened: number[]; updated: number[]; closed: number[] }

const episodeOf = (id: number) => `deenergised:${id}`;
const devicesJson = (s: DeenergisedSection) => JSON.stringify(s.devices.map((d) => ({ imei: d.imei, name: d.name, silentSince: new Date(d.silentSince).toISOString() })));

/** The one sentence that names a section, in its alarm and on the board. */
export function describeDeenergised(s: DeenergisedSection, powerLineName: string | null): string {
  const n = s.devices.length;
  return `Possible de-energised section ${s.label} on ${powerLineName ?? s.powerLineId}: ${n} line-powered indicator${n === 1 ? '' : 's'} silent `
    + `from ${s.point.name ?? s.point.imei} down since ${new Date(s.silentFrom).toISOString()}, no trip`;
}

/**
 * Opens, follows and closes the sections, in the caller's transaction; `silent`: every IMEI silent now (to tell
 * why a section closed).
 */
export async function applyDeenergisedSections(client: pg.ClientBase, sections: readonly DeenergisedSection[], silent: ReadonlySet<string>, now: Date): Promise<SectionChanges> {
  const { rows: open } = await client.query<OpenRow>(
    `select id, "PowerLineID", point_imei, devices from deenergised_sections where status = 'open' order by id for update`);
  const key = (line: string, point: string) => `${line}\u0000${point}`;
  const openByKey = new Map(open.map((r) => [key(r.PowerLineID, r.point_imei), r]));
  const found = new Set(sections.map((s) => key(s.powerLineId, s.point.imei)));
  const changes: SectionChanges = { opened: [], updated: [], closed: [] };
  const raises: RaiseInput[] = [];

  for (const r of open) {
    if (found.has(key(r.PowerLineID, r.point_imei))) continue;
    const wider = sections.find((s) => s.powerLineId === r.PowerLineID && s.devices.some((d) => d.imei === r.point_imei));
    const reason = wider ? `part of the wider section below ${wider.point.name ?? wider.point.imei}`
      : r.devices.every((d) => !silent.has(d.imei)) ? 'its indicators report again' : 'no longer reads as de-energised (indicators reporting again, or a trip on the line)';
    await client.query(`update deenergised_sections set status = 'closed', closed_at = $2, closed_reason = $3, updated_at = $2 where id = $1`, [r.id, now, reason]);
    changes.closed.push(Number(r.id));
  }

  const names = new Map((await client.query<{ Id: string; name: string | null }>(
    'select "Id", name from power_lines where "Id" = any($1)', [[...new Set(sections.map((s) => s.powerLineId))]])).rows.map((r) => [r.Id, r.name]));
  for (const s of sections) {
    const values = [s.upstream?.imei ?? null, s.phase, s.label, devicesJson(s), new Date(s.silentFrom), now];
    const had = openByKey.get(key(s.powerLineId, s.point.imei));
    if (had) {
      await client.query(
        `update deenergised_sections set upstream_imei = $2, phase = $3, label = $4, devices = $5, silent_since = $6, updated_at = $7 where id = $1`, [had.id, ...values]);
      changes.updated.push(Number(had.id));
      continue;
    }
    const { rows: [row] } = await client.query<{ id: string }>(
      `insert into deenergised_sections ("OrganizationID", "PowerLineID", point_imei, upstream_imei, phase, label, devices, silent_since, status, opened_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, 'open', $9, $9) returning id`,
      [s.organizationId, s.powerLineId, s.point.imei, ...values]);
    const id = Number(row!.id);
    raises.push({
      OrganizationID: s.organizationId, IMEINumber: s.point.imei, PowerLineID: s.powerLineId, kind: DEENERGISED_SECTION, episode: episodeOf(id),
      detail: {
        sectionId: id, section: s.label, phase: s.phase, point: s.point, upstream: s.upstream, devices: s.devices.length,
        silentSince: new Date(s.silentFrom).toISOString(), summary: describeDeenergised(s, names.get(s.powerLineId) ?? null),
      },
    });
    changes.opened.push(id);
  }
  // The sections' rows, then their alarms, in the caller's one transaction: a crash between leaves neither
  // (docs/decisions.md#review-of-fleet-health-as-a-crash).
  await failpoint('fleet.sections-written');
  for (const id of changes.closed) await endEventAlarms(client, episodeOf(id), [DEENERGISED_SECTION], now);
  for (const a of raises) await raiseEventAlarm(client, a, now.getTime());
  return changes;
}
