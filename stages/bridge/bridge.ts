// The bridge core (spec 6.1 steps 1 and 13): turns one receive batch of queue messages into records for
// fi.raw.v1 (keyed by IMEI, so each device keeps its order) or fi.dlq.v1, publishes them with one send and
// only then lets the source acknowledge its messages. No SQS or file-system code here: sources feed it.
//
// It checks only what keying needs: size, JSON syntax, an object root, device_data, a non-empty string
// device_data.IMEINumber. Field validation is the enrich stage's (domain/validate-message.ts), so a replay
// of fi.raw.v1 re-runs every rule on the original text.
import type { RejectionCode } from '../../domain/errors.js';
import { TOPICS } from '../../schemas/avro/topics.js';
import type { DeadLetter, RawMessage } from '../../schemas/avro/values.js';
import type { OutMessage, Producer } from '../runtime/transport/transport.js';
import { failpoint } from '../../config/failpoints.js';

export type SourceKind = 'sqs' | 'spool' | 'simulate';

/** One message as a source received it. */
export interface ReceivedMessage {
  /** SQS MessageId, or the spool file name. Keys the dead letter when no IMEI could be read. */
  messageId: string;
  body: string;
  source: SourceKind;
}

export type Decision =
  | { kind: 'raw'; key: string; value: RawMessage }
  | { kind: 'dead'; key: string; value: DeadLetter };

export interface DecideOptions {
  /** Largest accepted body in UTF-8 bytes. */
  maxBodyBytes: number;
  /** How much of a TOO_LARGE body the dead letter keeps (UTF-8 bytes): the whole would not fit a broker record. */
  deadLetterBodyBytes: number;
  /** Receive time, ms since the epoch. */
  receivedAt: number;
}

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_DEAD_LETTER_BODY_BYTES = 64 * 1024;
const STAGE = 'bridge';

/** Decides one message. Pure: same input, same record. */
export function decide(message: ReceivedMessage, { maxBodyBytes, deadLetterBodyBytes, receivedAt }: DecideOptions): Decision {
  const { messageId, body, source } = message;
  const reject = (code: RejectionCode, reason: string, kept: string = body): Decision => ({
    kind: 'dead',
    key: messageId,
    value: { messageId, source, imei: null, stage: STAGE, code, reason, body: kept, rejectedAt: receivedAt },
  });

  // A UTF-16 unit is at most 3 UTF-8 bytes, so short bodies skip the count.
  const size = body.length * 3 > maxBodyBytes ? Buffer.byteLength(body, 'utf8') : 0;
  if (size > maxBodyBytes) {
    const kept = truncateUtf8(body, deadLetterBodyBytes);
    return reject('TOO_LARGE', `body: ${size} bytes is over the ${maxBodyBytes} byte limit (not parsed; the dead letter keeps the first ${Buffer.byteLength(kept, 'utf8')} bytes)`, kept);
  }

  let root: unknown;
  try {
    // JSON.parse makes `__proto__` an ordinary own key and never touches a prototype; nothing below merges.
    root = JSON.parse(body);
  } catch (err) {
    return reject('MALFORMED', `body: not valid JSON (${parserMessage(err, body)})`);
  }
  // Same codes as domain/validate-message.ts, so a message gets one answer wherever it is checked.
  if (!isPlainObject(root)) return reject('MALFORMED', `body: ${describe(root)} is not a JSON object`);
  const deviceData = Object.hasOwn(root, 'device_data') ? root.device_data : undefined;
  if (!isPlainObject(deviceData)) return reject('INVALID', `device_data: ${describe(deviceData)} is not an object`);
  const imei = Object.hasOwn(deviceData, 'IMEINumber') ? deviceData.IMEINumber : undefined;
  if (typeof imei !== 'string' || imei.length === 0) {
    return reject('INVALID', `device_data.IMEINumber: ${describe(imei)} is not a non-empty string`);
  }
  return { kind: 'raw', key: imei, value: { messageId, source, receivedAt, imei, body } };
}

export interface BridgeOptions {
  producer: Producer;
  maxBodyBytes?: number;
  deadLetterBodyBytes?: number;
  /** Clock for receivedAt; read once per batch. */
  now?: () => number;
}

export interface ForwardOutcome {
  /** Records sent to fi.raw.v1. */
  published: number;
  /** Records sent to fi.dlq.v1. */
  deadLettered: number;
}

export interface Bridge {
  /**
   * Publishes one receive batch with a single send, then calls `acknowledge` (delete from SQS, remove the
   * spool files). When the send rejects, `acknowledge` is not called and the error is thrown.
   *
   * @example
   *   await bridge.forward(messages, async () => { await deleteFromQueue(messages); });
   */
  forward(batch: readonly ReceivedMessage[], acknowledge: (outcome: ForwardOutcome) => Promise<void>): Promise<ForwardOutcome>;
}

export function createBridge({ producer, maxBodyBytes = DEFAULT_MAX_BODY_BYTES, deadLetterBodyBytes = DEFAULT_DEAD_LETTER_BODY_BYTES, now = Date.now }: BridgeOptions): Bridge {
  if (!(maxBodyBytes > 0)) throw new RangeError(`maxBodyBytes must be positive, got ${maxBodyBytes}`);
  return {
    async forward(batch, acknowledge) {
      if (batch.length === 0) return { published: 0, deadLettered: 0 };
      const options: DecideOptions = { maxBodyBytes, deadLetterBodyBytes, receivedAt: now() };
      const raw: OutMessage[] = [];
      const dead: OutMessage[] = [];
      for (const message of batch) {
        const d = decide(message, options);
        if (d.kind === 'raw') raw.push({ topic: TOPICS.raw, key: d.key, value: d.value });
        else dead.push({ topic: TOPICS.dlq, key: d.key, value: d.value });
      }
      const outcome = { published: raw.length, deadLettered: dead.length };
      // Publish first, acknowledge after. Deleting first could lose a message if the process died between
      // the delete and the publish; publishing first can at worst publish a message twice (the process dies
      // before its delete, or the delete fails and SQS delivers it again), and the pipeline's unique keys
      // (device record per IMEI + date, event per IMEI + EventID + EventTimestamp) absorb the duplicate.
      await producer.send(raw.length && dead.length ? [...raw, ...dead] : raw.length ? raw : dead);
      await failpoint('bridge.after-publish');
      await acknowledge(outcome);
      return outcome;
    },
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A short description of a JSON value for a reason sentence: never the whole value. */
function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value.length > 40 ? `a string "${value.slice(0, 40)}..."` : `"${value}" (string)`;
  if (typeof value === 'object') return 'an object';
  return `${String(value)} (${typeof value})`;
}

/** V8's message; "Unexpected end of JSON input" names no position, so the length is added. */
function parserMessage(err: unknown, body: string): string {
  const message = err instanceof Error ? err.message : String(err);
  return /position \d+/.test(message) ? message : `${message} at position ${body.length} of ${body.length} characters`;
}

/** The longest prefix of `text` that is at most `maxBytes` UTF-8 bytes, cut on a character boundary. */
function truncateUtf8(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes) return text;
  let end = Math.min(text.length, maxBytes);
  while (end > 0 && Buffer.byteLength(text.slice(0, end), 'utf8') > maxBytes) end = Math.floor(end * 0.9);
  // Never end on the high half of a surrogate pair.
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end);
}
