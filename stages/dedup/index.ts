export { dedupStage } from './stage.js';
export { dedupMessage, type DedupDecision } from './handler.js';
