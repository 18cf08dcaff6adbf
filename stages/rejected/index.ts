export { rejectedStage, storeRejected } from './stage.js';
