// The point model's ASDUs: spontaneous events, interrogation and read answers, packed from the process image by
// the kinds' types and interrogation groups of point-map.ts; and the handlers a controlled station is given
// (station/application.ts StationHandlers, as lib60870 takes callbacks), so the station layer knows no point map.
// Interrogation data is built as the station asks for it (a generator per common address): a large image is
// never held twice in a connection's queue (docs/decisions.md#iec-104-bounded-sessions). Pure.
import { Cot } from '../asdu/cot.js';
import { encodeAsdu, objectsPerAsdu, type InfoObject } from '../asdu/codec.js';
import type { StationHandlers } from '../station/application.js';
import type { ProcessImage } from './image.js';
import { INTERROGATION_GROUP, TYPES, type StationPoint } from './point-map.js';

/** Interrogation groups (QOI 21..36 = group 1..16): point-map.ts INTERROGATION_GROUP's, the others empty. */
export const GROUP_KINDS: Readonly<Record<number, StationPoint['kind']>> = Object.fromEntries(
  (Object.entries(INTERROGATION_GROUP) as [StationPoint['kind'], number][]).map(([kind, group]) => [group, kind]));
const QOI_STATION = 20;

const staticObject = (p: StationPoint): InfoObject => ({ ioa: p.ioa, value: p.value, quality: p.quality });

/** Points of each kind packed into as few ASDUs as fit (no time: interrogation and read answers), one at a time. */
export function* packStatic(points: readonly StationPoint[], cause: number, ca: number, originator: number): Generator<Uint8Array> {
  for (const kind of ['binary', 'analog'] as const) {
    const typeId = TYPES[kind].static;
    const per = objectsPerAsdu(typeId);
    let objects: InfoObject[] = [];
    for (const p of points) {
      if (p.kind !== kind) continue;
      objects.push(staticObject(p));
      if (objects.length === per) { yield encodeAsdu({ typeId, cause, negative: false, test: false, originator, commonAddress: ca, objects }); objects = []; }
    }
    if (objects.length) yield encodeAsdu({ typeId, cause, negative: false, test: false, originator, commonAddress: ca, objects });
  }
}

/** Spontaneous events (COT 3) with the devices' own timestamps, packed per kind in arrival order. */
export function packEvents(events: readonly StationPoint[], ca: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let run: StationPoint[] = [];
  const flush = () => {
    if (run.length === 0) return;
    const typeId = TYPES[run[0]!.kind].event;
    out.push(encodeAsdu({ typeId, cause: Cot.SPONTANEOUS, negative: false, test: false, originator: 0, commonAddress: ca,
      objects: run.map((p) => ({ ioa: p.ioa, value: p.value, quality: p.quality, time: p.time })) }));
    run = [];
  };
  for (const e of events) {
    if (run.length > 0 && (run[0]!.kind !== e.kind || run.length >= objectsPerAsdu(TYPES[e.kind].event))) flush();
    run.push(e);
  }
  flush();
  return out;
}

/** One common address's data for interrogation `qoi` (20 station, 21..36 a group), read from the image when the station pulls it. */
function* interrogationData(image: ProcessImage, ca: number, qoi: number, originator: number): Generator<Uint8Array> {
  const group = qoi - QOI_STATION;
  const kind = group === 0 ? undefined : GROUP_KINDS[group];
  if (group !== 0 && !kind) return; // a group this station does not use: confirmed and terminated, empty
  const points = image.points(ca);
  yield* packStatic(kind ? points.filter((p) => p.kind === kind) : points, qoi, ca, originator);
}

/** The handlers of a station serving `image` (iec104/outstation.ts gives them to every connection's station). */
export function imageHandlers(image: ProcessImage): StationHandlers {
  return {
    commonAddresses: () => image.commonAddresses(),
    onInterrogation: (ca, qoi, originator) => interrogationData(image, ca, qoi, originator),
    onRead(ca, ioa, originator) {
      const p = image.point(ca, ioa);
      return p ? [...packStatic([p], Cot.REQUEST, ca, originator)][0] : undefined;
    },
  };
}
