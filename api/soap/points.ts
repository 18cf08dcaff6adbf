// GetAllSCADAPoints answered as a stream: the organisation's devices read in keyset pages (a cursor over
// the IMEI order), each page written out before the next is read, so 50,000 devices never sit in memory
// as one array or one document. Points are plain escaped text: xmlbuilder2 would build a DOM per page.
// The devices are those in the login's reach, as on every other reader: an admin's organisation, a user's
// groups (docs/decisions.md#reach-applied-once).
import type pg from 'pg';
import { log } from '../../config/log.js';
import { headerAttributes } from '../../multispeak/header.js';
import { NAMESPACE, SOAP_ENV, type Version } from '../../multispeak/versions.js';
import { reachCondition, type ReachCaller } from '../device-records/reach.js';
import { SqlParams } from '../device-records/sql.js';
import { escapeAttr } from './wsdl.js';

export const PAGE_SIZE = 1000;

interface PointRow { IMEINumber: string; Real_Name: string | null; serialNumber: string | null; Lat: number | null; Long: number | null }

function page(caller: ReachCaller, after: string): { sql: string; values: unknown[] } {
  const p = new SqlParams();
  const sql = `select d."IMEINumber", d."Real_Name", d."serialNumber", d."Lat", d."Long" from device_information d
                where ${reachCondition(caller, p)} and d."IMEINumber" > ${p.add(after)}::text
                order by d."IMEINumber" limit ${p.add(PAGE_SIZE)}::int`;
  return { sql, values: p.values };
}

function summary(caller: ReachCaller, after: string): { sql: string; values: unknown[] } {
  const p = new SqlParams();
  const sql = `select count(*)::int as n, max(d."IMEINumber") as last from device_information d
                where ${reachCondition(caller, p)} and d."IMEINumber" > ${p.add(after)}::text`;
  return { sql, values: p.values };
}

const leaf = (name: string, value: string | number | null) => (value === null || value === '' ? '' : `<m:${name}>${escapeAttr(String(value))}</m:${name}>`);

export function pointXml(version: Version, r: PointRow): string {
  if (version === '4.1') {
    const gps = r.Lat !== null && r.Long !== null ? `<m:gpsPoint><m:latitude>${r.Lat}</m:latitude><m:longitude>${r.Long}</m:longitude></m:gpsPoint>` : '';
    return `<m:scadaPoint objectID="${escapeAttr(r.IMEINumber)}">${leaf('objectName', r.Real_Name)}${gps}${leaf('description', r.serialNumber)}<m:scadaPointType>status</m:scadaPointType></m:scadaPoint>`;
  }
  // 3.0 has no objectName: the device name travels in comments (mspObject's only text child).
  return `<m:scadaPoint objectID="${escapeAttr(r.IMEINumber)}">${leaf('comments', r.Real_Name)}${leaf('description', r.serialNumber)}<m:scadaPointType>status</m:scadaPointType></m:scadaPoint>`;
}

/**
 * @example
 *   return new Response(await pointsStream(pool, '4.1', { userId: 1, org: 'north', role: 'admin' }, ''), { headers: { 'content-type': 'text/xml; charset=utf-8' } });
 */
export async function pointsStream(pool: pg.Pool, version: Version, caller: ReachCaller, lastReceived: string): Promise<ReadableStream<Uint8Array>> {
  const org = caller.org;
  const counted = summary(caller, lastReceived);
  const { rows: [total] } = await pool.query<{ n: number; last: string | null }>(counted.sql, counted.values);
  const ns = NAMESPACE[version];
  // Every point goes in this answer: nothing remains, and LastSent is the last objectID (reference 4).
  const attrs = headerAttributes(version, { objectsRemaining: 0, lastSent: total?.last ?? undefined, timeStamp: new Date().toISOString() });
  const header = Object.entries(attrs).map(([k, v]) => ` ${k}="${escapeAttr(v)}"`).join('');
  const head = `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${SOAP_ENV}" xmlns:m="${ns}"><soap:Header><m:MultiSpeakMsgHeader${header} /></soap:Header>`
    + '<soap:Body><m:GetAllSCADAPointsResponse><m:GetAllSCADAPointsResult>';
  const tail = '</m:GetAllSCADAPointsResult></m:GetAllSCADAPointsResponse></soap:Body></soap:Envelope>';
  const encoder = new TextEncoder();
  let after: string | null = lastReceived;
  return new ReadableStream<Uint8Array>({
    start(controller) { controller.enqueue(encoder.encode(head)); },
    async pull(controller) {
      if (after === null) return;
      try {
        const next = page(caller, after);
        const { rows } = await pool.query<PointRow>(next.sql, next.values);
        if (rows.length > 0) controller.enqueue(encoder.encode(rows.map((r) => pointXml(version, r)).join('')));
        if (rows.length < PAGE_SIZE) {
          after = null;
          controller.enqueue(encoder.encode(tail));
          controller.close();
        } else {
          after = rows[rows.length - 1]!.IMEINumber;
        }
      } catch (err) {
        // The 200 is already sent: the client sees a truncated document, never a half-true list.
        log.error({ err: { name: (err as Error).name, message: (err as Error).message }, org }, 'GetAllSCADAPoints stream failed');
        controller.error(err);
      }
    },
  }, { highWaterMark: 1 });
}
