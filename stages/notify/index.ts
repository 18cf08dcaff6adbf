export { notifyStage } from './stage.js';
export { notificationsFor, storedView, FAULT_EVENT_TYPES, type MultiSpeakIntegration, type OutboxRow } from './handler.js';
