export { enrichStage, type EnrichStageOptions } from './stage.js';
export { enrichMessage, type EnrichOutcome, type EnrichRules } from './handler.js';
