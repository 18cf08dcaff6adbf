// MultiSpeak delivery: the outbox worker and what it is made of.
export { startDeliveryWorker, type DeliveryWorker, type DeliveryWorkerOptions } from './worker.js';
export { messageIdOf } from './deliver.js';
export { DeliveryError, DELIVERY_ERRORS, type DeliveryErrorCode } from './errors.js';
export { claimDue, markDelivered, markFailed, pendingCount, type ClaimedRow } from './outbox.js';
