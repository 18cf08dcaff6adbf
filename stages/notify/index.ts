export { notifyStage } from './stage.js';
export { notificationsFor, storedView, type MultiSpeakIntegration, type OutboxRow } from './handler.js';
