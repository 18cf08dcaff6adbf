// READ: turn object headers into runs. Events are selected here (marked, not deleted) and placed before
// static data, as opendnp3 does. Unknown objects add OBJECT_UNKNOWN, bad qualifiers or ranges partly outside
// the database add PARAMETER_ERROR; whatever exists is still returned.
//
// One request cannot make the outstation build more than its database (docs/decisions.md#dnp3-listener-limits):
// each point goes into a response at most once however many headers name it (opendnp3 marks selected points
// the same way), and a READ with more than MAX_READ_HEADERS headers is refused whole with IIN2.2.
import { Iin } from '../app/header.js';
import { MAX_READ_HEADERS, Qualifier } from '../app/object-header.js';
import type { ObjectHeader } from '../app/object-header.js';
import { DEFAULT_VARIATION, objectSpec } from '../objects/table.js';
import type { ObjectSpec } from '../objects/table.js';
import type { PointValue } from '../objects/codec.js';
import type { Database, PointType } from './database.js';
import type { BufferedEvent, EventBuffer } from './event-buffer.js';
import type { Run } from './response.js';

export interface ReadResult {
  eventRuns: Run[];
  staticRuns: Run[];
  iin: number;
  /** Set when the request was refused whole (answered with `iin`, nothing built). */
  refused?: 'readTooManyHeaders';
}

/** Points of each type already in this response. */
type Taken = Record<PointType, Uint8Array>;

export interface ReadContext {
  db: Database;
  events: EventBuffer;
  /** Outstation clock in ms (for g50v1 reads). */
  clockMs: number;
}

const spec = (g: number, v: number): ObjectSpec => objectSpec(g, v)!;

function staticRuns(ctx: ReadContext, type: PointType, sp: ObjectSpec, h: ObjectHeader | null, taken: Taken): { runs: Run[]; iin: number } {
  const count = ctx.db.count(type);
  if (taken[type].length !== count) taken[type] = new Uint8Array(count);
  const seen = taken[type];
  const value = (i: number): PointValue => ctx.db.get(type, i)!;
  // The points of start..stop not yet in the response, as runs of consecutive indexes.
  const range = (start: number, stop: number): Run[] => {
    const runs: Run[] = [];
    let from = -1;
    for (let i = start; i <= stop + 1; i++) {
      if (i <= stop && !seen[i]) {
        seen[i] = 1;
        if (from < 0) from = i;
      } else if (from >= 0) {
        const first = from;
        runs.push({ kind: 'range', spec: sp, start: first, values: Array.from({ length: i - first }, (_, k) => value(first + k)) });
        from = -1;
      }
    }
    return runs;
  };
  if (!h || h.range.kind === 'all') return { runs: range(0, count - 1), iin: 0 };
  if (h.indices) {
    if (sp.size === 'bits') return { runs: [], iin: Iin.PARAMETER_ERROR };
    const inRange = h.indices.filter((i) => i < count);
    const fresh = inRange.filter((i) => !seen[i] && (seen[i] = 1));
    return {
      runs: fresh.length ? [{ kind: 'indexed', spec: sp, entries: fresh.map((index) => ({ index, value: value(index) })) }] : [],
      iin: inRange.length === h.indices.length ? 0 : Iin.PARAMETER_ERROR,
    };
  }
  const start = h.range.kind === 'range' ? h.range.start : 0;
  const stop = h.range.kind === 'range' ? h.range.stop : h.range.count - 1;
  const clamped = Math.min(stop, count - 1);
  return { runs: range(start, clamped), iin: clamped === stop ? 0 : Iin.PARAMETER_ERROR };
}

/** Groups consecutive events of the same type into one indexed run each. */
function eventRuns(events: BufferedEvent[], variations: { binary: number; analog: number }): Run[] {
  const runs: Run[] = [];
  let last: { type: PointType; run: Extract<Run, { kind: 'indexed' }> } | undefined;
  for (const e of events) {
    if (!last || last.type !== e.type) {
      const sp = e.type === 'binary' ? spec(2, variations.binary) : spec(32, variations.analog);
      last = { type: e.type, run: { kind: 'indexed', spec: sp, entries: [] } };
      runs.push(last.run);
    }
    last.run.entries.push({ index: e.index, value: e.value, eventId: e.id });
  }
  return runs;
}

function eventLimit(h: ObjectHeader): number | undefined | null {
  if (h.range.kind === 'all') return undefined;
  if (h.range.kind === 'count' && !h.indices) return h.range.count;
  return null; // start/stop or index prefixes make no sense for events
}

const ALL_EVENT_CLASSES = new Set([1, 2, 3]);
const DEFAULTS = { binary: DEFAULT_VARIATION.binaryEvent, analog: DEFAULT_VARIATION.analogEvent };

export function handleRead(ctx: ReadContext, headers: readonly ObjectHeader[]): ReadResult {
  // IIN2.2: the request's parameters are beyond what the outstation accepts; nothing is read.
  if (headers.length > MAX_READ_HEADERS) return { eventRuns: [], staticRuns: [], iin: Iin.PARAMETER_ERROR, refused: 'readTooManyHeaders' };
  const out: ReadResult = { eventRuns: [], staticRuns: [], iin: 0 };
  const taken: Taken = { binary: new Uint8Array(0), analog: new Uint8Array(0) };
  for (const h of headers) {
    const sp = objectSpec(h.group, h.variation);
    if (!sp) { out.iin |= Iin.OBJECT_UNKNOWN; continue; }
    switch (sp.kind) {
      case 'class': {
        if (h.variation === 1) {
          if (h.range.kind !== 'all') { out.iin |= Iin.PARAMETER_ERROR; break; }
          out.staticRuns.push(...staticRuns(ctx, 'binary', spec(1, DEFAULT_VARIATION.binaryStatic), null, taken).runs);
          out.staticRuns.push(...staticRuns(ctx, 'analog', spec(30, DEFAULT_VARIATION.analogStatic), null, taken).runs);
          break;
        }
        const limit = eventLimit(h);
        if (limit === null) { out.iin |= Iin.PARAMETER_ERROR; break; }
        const selected = ctx.events.select({ classes: new Set([h.variation - 1]), limit }, 'sol');
        out.eventRuns.push(...eventRuns(selected, DEFAULTS));
        break;
      }
      case 'binaryStatic':
      case 'analogStatic': {
        const type: PointType = sp.kind === 'binaryStatic' ? 'binary' : 'analog';
        const v = h.variation !== 0 ? sp : spec(h.group, type === 'binary' ? DEFAULT_VARIATION.binaryStatic : DEFAULT_VARIATION.analogStatic);
        if (h.qualifier === Qualifier.COUNT_8 || h.qualifier === Qualifier.COUNT_16) { out.iin |= Iin.PARAMETER_ERROR; break; }
        const r = staticRuns(ctx, type, v, h, taken);
        out.staticRuns.push(...r.runs);
        out.iin |= r.iin;
        break;
      }
      case 'binaryEvent':
      case 'analogEvent': {
        const type: PointType = sp.kind === 'binaryEvent' ? 'binary' : 'analog';
        const limit = eventLimit(h);
        if (limit === null) { out.iin |= Iin.PARAMETER_ERROR; break; }
        const selected = ctx.events.select({ classes: ALL_EVENT_CLASSES, type, limit }, 'sol');
        const variations = h.variation === 0 ? DEFAULTS : { ...DEFAULTS, [type]: h.variation };
        out.eventRuns.push(...eventRuns(selected, variations));
        break;
      }
      case 'time':
        if (h.variation !== 1) { out.iin |= Iin.OBJECT_UNKNOWN; break; }
        out.staticRuns.push({ kind: 'count', spec: sp, values: [{ flags: 0, value: 0, time: ctx.clockMs }] });
        break;
      default:
        // g12 (no outputs here), g51, g52, g80 are not readable.
        out.iin |= Iin.OBJECT_UNKNOWN;
    }
  }
  return out;
}
