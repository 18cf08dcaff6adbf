// The feeder topology of an import (docs/decisions.md#feeder-incidents): the rules of domain/feeder-topology.ts
// applied to the state after the import, the file's devices over the stored devices they touch, each problem
// reported at the file row it concerns (or at the stored device that the file would leave broken).
import type pg from 'pg';
import { checkTopology, type Phase, type TopologyNode } from '../domain/feeder-topology.js';
import type { Problem } from './errors.js';
import type { DeviceInput } from './model.js';
import type { PathOf } from './references.js';

/** Stored devices the file's devices may relate to: on their power lines, named as upstream, or below them. */
export async function loadTopology(client: pg.ClientBase, devices: readonly DeviceInput[]): Promise<TopologyNode[]> {
  const withTopology = devices.filter((d) => d.Phase !== null || d.UpstreamIMEI !== null);
  const lines = [...new Set(devices.flatMap((d) => (d.PowerLineID !== null && (d.Phase !== null || d.UpstreamIMEI !== null) ? [d.PowerLineID] : [])))];
  const upstream = withTopology.flatMap((d) => (d.UpstreamIMEI ? [d.UpstreamIMEI] : []));
  const imeis = devices.map((d) => d.IMEINumber);
  const { rows } = await client.query<{ imei: string; line: string | null; upstream: string | null; phase: Phase | null }>(
    `select "IMEINumber" as imei, "PowerLineID" as line, "UpstreamIMEI" as upstream, "Phase" as phase
       from device_information
      where deleted_at is null
        and ("PowerLineID" = any($1::text[]) or "IMEINumber" = any($2::text[]) or "UpstreamIMEI" = any($3::text[]))`,
    [lines, upstream, imeis],
  );
  return rows.map((r) => ({ imei: r.imei, powerLineId: r.line, upstream: r.upstream, phase: r.phase }));
}

/** Problems of the topology the import would leave: the file's rows win over the stored ones; deleted devices leave it. */
export function checkImportTopology(devices: readonly DeviceInput[], stored: readonly TopologyNode[], pathOf: PathOf): Problem[] {
  if (!devices.some((d) => d.Phase !== null || d.UpstreamIMEI !== null) && stored.length === 0) return [];
  const nodes = new Map(stored.map((n) => [n.imei, n]));
  const rowOf = new Map<string, string>();
  devices.forEach((d, i) => {
    rowOf.set(d.IMEINumber, pathOf('devices', d, i));
    if (d.deleted) nodes.delete(d.IMEINumber);
    else nodes.set(d.IMEINumber, { imei: d.IMEINumber, powerLineId: d.PowerLineID, upstream: d.UpstreamIMEI, phase: d.Phase });
  });
  return checkTopology([...nodes.values()]).map((p) => {
    const row = rowOf.get(p.imei);
    return row ? { path: `${row}.${p.field}`, message: p.message } : { path: `(stored device ${p.imei}).${p.field}`, message: `${p.message} after this import` };
  });
}
