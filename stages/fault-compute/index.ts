export { faultComputeStage } from './stage.js';
export { computeMessage, previousRecord, type FaultRules } from './handler.js';
