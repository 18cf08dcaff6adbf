// The pipeline's shape (docs/architecture.md#pipeline-shape): the five stages every check-in passes, in order,
// and where the chain is cut into segments. A segment is one consumer that runs its stages on each batch in
// memory; between segments the records go through a Kafka topic. Chained (no cut) is the default; a cut is a
// deployment choice (PIPELINE_SPLIT), e.g. to scale persist on its own or to keep an intermediate topic.
// Pure: no I/O.
import { TOPICS } from '../schemas/avro/topics.js';

export const CHAIN = ['enrich', 'dedup', 'fault-compute', 'persist', 'notify'] as const;
export type ChainStage = (typeof CHAIN)[number];

/** The topic each stage reads: the one a segment starting at that stage consumes (and replay waits on). */
export const CHAIN_INPUT: Record<ChainStage, string> = {
  enrich: TOPICS.raw, dedup: TOPICS.enriched, 'fault-compute': TOPICS.deduped, persist: TOPICS.computed, notify: TOPICS.persisted,
};

/** Every cut at once: each stage its own consumer (the shape before chaining). */
export const EVERY_BOUNDARY = 'every';

const isChainStage = (s: string): s is ChainStage => (CHAIN as readonly string[]).includes(s);

/**
 * PIPELINE_SPLIT: empty for the chained default, `every` for every boundary, or the stages that start a new
 * segment, comma separated (`persist` gives enrich..fault-compute and persist..notify). Returns the cuts in
 * chain order.
 */
export function parseSplit(text: string | undefined): ChainStage[] {
  const value = (text ?? '').trim();
  if (value === '') return [];
  if (value === EVERY_BOUNDARY) return CHAIN.slice(1);
  const names = value.split(',').map((s) => s.trim()).filter(Boolean);
  for (const n of names) {
    if (!isChainStage(n)) throw new Error(`PIPELINE_SPLIT: "${n}" is not a stage; give ${EVERY_BOUNDARY}, or the stages that start a segment, from ${CHAIN.slice(1).join(', ')}`);
    if (n === CHAIN[0]) throw new Error(`PIPELINE_SPLIT: the chain always starts at ${CHAIN[0]}; name the stages after a cut, from ${CHAIN.slice(1).join(', ')}`);
  }
  return CHAIN.filter((s) => names.includes(s));
}

/** The segments of a shape, in chain order; each is a run of consecutive stages. */
export function segmentsOf(cuts: readonly ChainStage[]): ChainStage[][] {
  const segments: ChainStage[][] = [];
  for (const stage of CHAIN) {
    if (segments.length === 0 || cuts.includes(stage)) segments.push([stage]);
    else segments.at(-1)!.push(stage);
  }
  return segments;
}

/** `persist` for a one-stage segment, `enrich..fault-compute` for a longer one. */
export const segmentLabel = (segment: readonly ChainStage[]) => (segment.length === 1 ? segment[0]! : `${segment[0]}..${segment.at(-1)}`);

/** The stages a label names: one stage, or `first..last` of the chain. Null when it names none. */
export function stagesOfLabel(label: string): ChainStage[] | null {
  if (isChainStage(label)) return [label];
  const [first, last, ...rest] = label.split('..');
  if (rest.length || !first || !last || !isChainStage(first) || !isChainStage(last)) return null;
  const [from, to] = [CHAIN.indexOf(first), CHAIN.indexOf(last)];
  return from <= to ? CHAIN.slice(from, to + 1) : null;
}

/**
 * Which segments a process runs when it is asked for some chain stages (`start --only`). A process runs
 * whole segments: asking for part of one is an error that says what the shape is.
 */
export function segmentsFor(stages: ReadonlySet<ChainStage>, cuts: readonly ChainStage[]): ChainStage[][] {
  const chosen: ChainStage[][] = [];
  for (const segment of segmentsOf(cuts)) {
    const wanted = segment.filter((s) => stages.has(s));
    if (wanted.length === segment.length) chosen.push(segment);
    else if (wanted.length > 0) {
      const shape = cuts.length ? `PIPELINE_SPLIT=${cuts.join(',')}` : 'PIPELINE_SPLIT is not set, so the chain runs whole';
      throw new Error(`${wanted.join(', ')} ${wanted.length > 1 ? 'are' : 'is'} part of the segment ${segmentLabel(segment)} (${shape}): run the whole segment, or cut the chain with PIPELINE_SPLIT`);
    }
  }
  return chosen;
}
