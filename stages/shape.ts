// The pipeline's shape (docs/architecture.md#pipeline-shape): the five stages every check-in passes, in order,
// and where the chain is cut into segments. A segment is one consumer that runs its stages on each batch in
// memory; between segments the records go through a Kafka topic. Chained (no cut) is the default; a cut is a
// deployment choice (PIPELINE_SPLIT), e.g. to scale persist on its own or to keep an intermediate topic.
// Pure: no I/O.
import { CHAIN, isChainStage, type ChainStage } from '../config/pipeline-split.js';
import { TOPICS } from '../schemas/avro/topics.js';

/** The topic each stage reads: the one a segment starting at that stage consumes (and replay waits on). */
export const CHAIN_INPUT: Record<ChainStage, string> = {
  enrich: TOPICS.raw, dedup: TOPICS.enriched, 'fault-compute': TOPICS.deduped, persist: TOPICS.computed, notify: TOPICS.persisted,
};

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
