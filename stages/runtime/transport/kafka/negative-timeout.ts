// kafkajs 2.2.4's request queue arms `setTimeout(check, throttledUntil - Date.now())` with throttledUntil -1 when
// nothing is throttled: a timeout of minus the epoch, which Node 24 turns into 1 ms (what kafkajs meant) and
// reports as a TimeoutNegativeWarning on every connection, in every process and test suite that talks to Kafka.
// Harmless, but it buried real warnings (docs/decisions.md#signals-during-start-up-and-the-test-runners-guards).
// This drops exactly that warning, recognised by the kafkajs request queue on its stack; every other warning,
// a negative timeout of our own included, is printed as before. Loaded for its effect by the Kafka client
// (./client.ts) and by every test suite (test/helpers/suite-args.ts).
const KAFKAJS_REQUEST_QUEUE = /kafkajs[\\/]src[\\/]network[\\/]requestQueue[\\/]/;

const emitWarning = process.emitWarning.bind(process);

function isKafkajsNegativeTimeout(warning: string | Error, type: unknown): boolean {
  const name = typeof type === 'string' ? type : (type as { type?: string } | undefined)?.type ?? (warning instanceof Error ? warning.name : '');
  return name === 'TimeoutNegativeWarning' && KAFKAJS_REQUEST_QUEUE.test(new Error().stack ?? '');
}

process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
  if (isKafkajsNegativeTimeout(warning, rest[0])) return;
  (emitWarning as (...args: unknown[]) => void)(warning, ...rest);
}) as typeof process.emitWarning;
