export { persistStage, persistBatch } from './stage.js';
