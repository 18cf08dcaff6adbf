// PIPELINE_SPLIT's language (docs/architecture.md#pipeline-shape): the five stages every check-in passes, in
// order, and the cuts a deployment may ask for. Here, in config/, because the stage names are words of the
// configuration (PIPELINE_SPLIT, `start --only`); stages/shape.ts builds the segments from them. Pure.

export const CHAIN = ['enrich', 'dedup', 'fault-compute', 'persist', 'notify'] as const;
export type ChainStage = (typeof CHAIN)[number];

/** Every cut at once: each stage its own consumer (the shape before chaining). */
export const EVERY_BOUNDARY = 'every';

export const isChainStage = (s: string): s is ChainStage => (CHAIN as readonly string[]).includes(s);

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
