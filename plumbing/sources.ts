// Values of the `source` field that change how later stages treat a record.

/** Re-read by `faultline replay`: stored rows stay as they are; nothing is sent to customers. */
export const REPLAY_SOURCE = 'replay';
/** Re-read by `faultline replay --reprocess`: derived columns of stored rows are recomputed; nothing is sent. */
export const REPROCESS_SOURCE = 'reprocess';

export const isReread = (source: string) => source === REPLAY_SOURCE || source === REPROCESS_SOURCE;
