// What an SQS answer must look like before the bridge acts on it. Pure: parsed JSON in, typed values or an
// SqsAnswerError naming the first problem out. A server that answers `{"Messages":{}}` or `[null]` is broken or
// hostile; its answer is refused as a whole (the source logs it and backs off, the messages come back after
// their visibility timeout), never half-used (docs/decisions.md#sqs-request-path-hardened).

import { FaultlineError } from '../../errors/base.js';

/** A received message: what the bridge reads of it. */
export interface SqsMessage { MessageId: string; ReceiptHandle: string; Body: string }
export interface SqsDeleteFailure { Id: string; SenderFault: boolean; Code: string; Message?: string }
export interface SqsDeleteResult { Successful: { Id: string }[]; Failed: SqsDeleteFailure[] }

/** A 2xx answer that is not what the protocol promises (not JSON, wrong shape, too large). */
export class SqsAnswerError extends FaultlineError<'SQS_ANSWER_REFUSED'> {
  constructor(action: string, problem: string) {
    super('SQS_ANSWER_REFUSED', `SQS ${action}: refused the answer: ${problem}`, { retriable: false });
  }
}

/** A JSON value's kind in a few words, never the value itself (it may be huge or hostile). */
export function kindOf(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The answer's root: a JSON object. */
function root(action: string, answer: unknown): Record<string, unknown> {
  if (!isObject(answer)) throw new SqsAnswerError(action, `the answer is ${kindOf(answer)}, not a JSON object`);
  return answer;
}

/** An optional list: absent means empty (SQS leaves out an empty Messages, Successful or Failed). */
function list(action: string, answer: Record<string, unknown>, field: string): unknown[] {
  const value = answer[field];
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new SqsAnswerError(action, `${field} is ${kindOf(value)}, not an array`);
  return value;
}

function strings<K extends string>(action: string, where: string, value: unknown, fields: readonly K[]): Record<K, string> {
  if (!isObject(value)) throw new SqsAnswerError(action, `${where} is ${kindOf(value)}, not an object`);
  for (const f of fields) {
    if (typeof value[f] !== 'string') throw new SqsAnswerError(action, `${where}.${f} is ${kindOf(value[f])}, not a string`);
  }
  return value as Record<K, string>;
}

/** ReceiveMessage: at most `maxMessages` messages, each with a string MessageId, ReceiptHandle and Body. */
export function receiveAnswer(answer: unknown, maxMessages: number): SqsMessage[] {
  const action = 'ReceiveMessage';
  const messages = list(action, root(action, answer), 'Messages');
  if (messages.length > maxMessages) throw new SqsAnswerError(action, `${messages.length} messages, asked for at most ${maxMessages}`);
  return messages.map((m, i) => {
    const { MessageId, ReceiptHandle, Body } = strings(action, `Messages[${i}]`, m, ['MessageId', 'ReceiptHandle', 'Body'] as const);
    return { MessageId, ReceiptHandle, Body };
  });
}

/** DeleteMessageBatch: Successful entries with a string Id; Failed ones with Id, Code and a boolean SenderFault. */
export function deleteAnswer(answer: unknown): SqsDeleteResult {
  const action = 'DeleteMessageBatch';
  const out = root(action, answer);
  const Successful = list(action, out, 'Successful').map((s, i) => ({ Id: strings(action, `Successful[${i}]`, s, ['Id'] as const).Id }));
  const Failed = list(action, out, 'Failed').map((f, i): SqsDeleteFailure => {
    const { Id, Code } = strings(action, `Failed[${i}]`, f, ['Id', 'Code'] as const);
    const { SenderFault, Message } = f as Record<string, unknown>;
    if (typeof SenderFault !== 'boolean') throw new SqsAnswerError(action, `Failed[${i}].SenderFault is ${kindOf(SenderFault)}, not a boolean`);
    return { Id, Code, SenderFault, ...(typeof Message === 'string' ? { Message } : {}) };
  });
  return { Successful, Failed };
}

/** GetQueueAttributes: Attributes, an object of strings (absent: none). */
export function attributesAnswer(answer: unknown): Record<string, string> {
  const action = 'GetQueueAttributes';
  const attributes = root(action, answer).Attributes;
  if (attributes === undefined) return {};
  if (!isObject(attributes)) throw new SqsAnswerError(action, `Attributes is ${kindOf(attributes)}, not an object`);
  return strings(action, 'Attributes', attributes, Object.keys(attributes));
}
