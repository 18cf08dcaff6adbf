// Resync (docs/decisions.md#multispeak-resync): the current state of every device of an integration's
// organisation queued for its OMS, after an outage ends (the delivery worker) or on request
// (`faultline outbox resync <integration>`). A device is skipped when the OMS already has, or is about to
// get, that state: the newest outbox row of the device that is not dead carries the same fault code (and,
// for check-in notifications, a check-in at least as new). Rows go to the end of each device's queue, so
// the per-device order of the outbox holds; the table lock keeps notify from slipping a newer state in
// before an older resync row.
import type pg from 'pg';
import { readIntegrations } from '../../integrations/store.js';
import { enqueue } from './outbox.js';
import { multiSpeakSettings } from '../integration.js';
import { CHECKIN_OPERATION } from '../operations.js';
import { outboxPayload } from '../outbox-payload.js';
import { withTransaction } from '../../db/transaction.js';

export interface ResyncResult {
  integration: string;
  /** Devices of the organisation with a stored check-in. */
  devices: number;
  /** Rows queued (the others already had their state delivered or pending). */
  queued: number;
}

interface StateRow {
  IMEINumber: string;
  date: Date;
  ActualOngoingFault: number;
  CurrentName: string | null;
  CurrentLat: number | null;
  CurrentLong: number | null;
  AverageCurrent1m: number | null;
  BatteryMCU: number | null;
  BatteryOrLine: number | null;
  last_fault: number | null;
  last_date: string | null;
}

const STATES = `
  select d."IMEINumber", r."date", r."ActualOngoingFault", r."CurrentName", r."CurrentLat", r."CurrentLong",
         r."AverageCurrent1m", r."BatteryMCU", r."BatteryOrLine",
         (s.payload->>'ActualOngoingFault')::int as last_fault, s.payload->>'date' as last_date
    from device_information d
    -- a device moved from another organisation: its status from the move on (docs/decisions.md#reach-applied-once)
    join device_latest l on l."IMEINumber" = d."IMEINumber" and l."date" >= d."OrganizationSince"
    join device_records r on r."RecordID" = l."RecordID" and r."date" = l."date"
    left join lateral (
      select o.payload from outbox o
       where o.integration_id = $1 and o."IMEINumber" = d."IMEINumber" and o.dead_at is null
       order by o.id desc limit 1
    ) s on true
   where d."OrganizationID" = $2 and d.deleted_at is null
   order by d."IMEINumber"`;

/** The pure rule: does the OMS already have (or is about to get) this state? */
export function alreadyHas(row: Pick<StateRow, 'date' | 'ActualOngoingFault' | 'last_fault' | 'last_date'>, checkins: boolean): boolean {
  if (row.last_fault === null || row.last_fault !== row.ActualOngoingFault) return false;
  return !checkins || (row.last_date !== null && new Date(row.last_date).getTime() >= row.date.getTime());
}

/**
 * @example
 *   const { queued } = await resyncIntegration(pool, 'north-oms');          // changed states only
 *   await resyncIntegration(pool, 'north-oms', { all: true });              // every device, e.g. the OMS lost its state
 */
export async function resyncIntegration(pool: pg.Pool, integrationId: string, { all = false, now = new Date() } = {}): Promise<ResyncResult> {
  const [stored] = await readIntegrations(pool, { kind: 'multispeak', id: integrationId, enabledOnly: false });
  if (!stored) throw new Error(`no MultiSpeak integration "${integrationId}"`);
  const s = multiSpeakSettings(stored);
  const checkins = s.operation === CHECKIN_OPERATION && s.checkins;
  const kind = checkins ? 'checkin' : 'status';
  const run = now.getTime().toString(36);
  return withTransaction(pool, async (client) => {
    await client.query('lock table outbox in share row exclusive mode');
    const { rows } = await client.query<StateRow>(STATES, [s.id, s.OrganizationID]);
    const due = all ? rows : rows.filter((r) => !alreadyHas(r, checkins));
    if (due.length > 0) {
      await enqueue(client, due.map((r) => ({
        integrationId: s.id, IMEINumber: r.IMEINumber, kind, dedupKey: `resync:${run}:${r.IMEINumber}`,
        payload: outboxPayload({ ...r, date: r.date.toISOString() }, null, kind === 'status' ? [] : undefined),
      })));
    }
    return { integration: s.id, devices: rows.length, queued: due.length };
  });
}
