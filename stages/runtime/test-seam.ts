// The one seam a test may use to make a stage fail on chosen records (docs/decisions.md#poison-records): code
// loaded into the process (the resilience suite starts `faultline` with `node --import <its hook>`) puts a
// wrapper under this global symbol, and buildStages (stages/pipeline.ts) wraps every stage with it. Nothing in
// the settings or the environment installs one, so a deployment cannot turn it on by accident: it takes code
// that only the test suite has.
import type { Stage } from './stage.js';

export type StageWrapper = (stage: Stage<never>) => Stage<never>;

const KEY = Symbol.for('faultline.test.stageWrapper');

/** For the test hook only. */
export function installStageWrapper(wrapper: StageWrapper): void {
  (globalThis as Record<symbol, unknown>)[KEY] = wrapper;
}

/** The stage as built, or as the installed test wrapper made it. */
export function withTestSeam(stage: Stage<never>): Stage<never> {
  const wrapper = (globalThis as Record<symbol, unknown>)[KEY] as StageWrapper | undefined;
  return wrapper ? wrapper(stage) : stage;
}
