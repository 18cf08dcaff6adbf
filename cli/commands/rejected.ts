// `faultline rejected [--code C] [--since T] [--stack]`: what the pipeline refused and why.
// `rejected resubmit <id>` or `rejected resubmit --code C [--since T]` sends messages through the pipeline again
// (after the device was registered, a rule or a stage was fixed) and says how many. A message from the queue
// goes to fi.raw.v1 as a new raw message; a poison record (PROCESSING_FAILED) read from a later topic goes back
// to that topic with its value (docs/decisions.md#poison-records).
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { COMMANDS } from '../command-table.js';
import { TOPICS } from '../../schemas/avro/topics.js';
import type { RawMessage } from '../../schemas/avro/values.js';
import type { OutMessage } from '../../stages/runtime/transport/transport.js';
import { transportFromSettings } from '../../stages/runtime/transport/from-settings.js';
import { openRuntime } from '../runtime.js';
import { withTransaction } from '../../db/transaction.js';

interface Row {
  id: number; message_id: string; stage: string; code: string; reason: string; imei: string | null; body: string;
  topic: string | null; detail: string | null; rejected_at: Date; resubmitted_at: Date | null;
}

/** `--since`: an ISO 8601 time, or an age such as 30m, 12h, 7d. */
export function parseSince(text: string, now = Date.now()): Date {
  const age = /^(\d+)([mhd])$/.exec(text.trim());
  if (age) return new Date(now - Number(age[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[age[2] as 'm' | 'h' | 'd']);
  const at = Date.parse(text);
  if (Number.isNaN(at)) throw new Error(`--since: "${text}" is neither an ISO 8601 time nor an age like 30m, 12h or 7d`);
  return new Date(at);
}

/** The record a dead letter stands for, as it is sent again: to where it came from. */
export function resubmission(row: Pick<Row, 'id' | 'imei' | 'body' | 'topic'>, now = Date.now()): OutMessage {
  if (row.topic === null || row.topic === TOPICS.raw) {
    const raw: RawMessage = { messageId: `resubmit-${row.id}-${now}`, source: 'resubmit', receivedAt: now, imei: row.imei ?? '', body: row.body };
    return { topic: TOPICS.raw, key: raw.imei || raw.messageId, value: raw };
  }
  // A later topic's record: its value as it was read (the letter's body is its JSON), keyed by the device.
  return { topic: row.topic, key: row.imei ?? '', value: JSON.parse(row.body) as unknown };
}

function filters(values: { code?: string | undefined; since?: string | undefined }): { where: string[]; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  if (values.code) { params.push(values.code); where.push(`code = $${params.length}`); }
  if (values.since) { params.push(parseSince(values.since)); where.push(`rejected_at >= $${params.length}`); }
  return { where, params };
}

export async function run(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: COMMANDS.rejected.options });
  const [action = 'list', id] = positionals;
  if (action !== 'list' && action !== 'resubmit') throw new Error(`rejected: unknown action "${action}" (list | resubmit <id> | resubmit --code C [--since T])`);
  const { where, params } = filters(values);
  const runtime = await openRuntime();
  try {
    if (action === 'list') {
      const limit = Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1) throw new Error(`rejected --limit: "${values.limit}" is not a positive whole number`);
      const { rows } = await runtime.pool.query<Row>(
        `select * from rejected_messages ${where.length ? `where ${where.join(' and ')}` : ''} order by id desc limit ${limit}`, params,
      );
      if (rows.length === 0) process.stdout.write('no rejected messages\n');
      for (const r of rows) {
        process.stdout.write(`#${r.id} ${r.rejected_at.toISOString()} ${r.stage} ${r.code} imei=${r.imei ?? '-'}${r.topic ? ` from=${r.topic}` : ''}${r.resubmitted_at ? ' (resubmitted)' : ''}\n    ${r.reason}\n`);
        if (values.stack && r.detail) process.stdout.write(`${r.detail.split('\n').map((l) => `      ${l}`).join('\n')}\n`);
      }
      return;
    }
    if (id !== undefined && !/^\d+$/.test(id)) throw new Error('rejected resubmit <id>: give the number shown by `faultline rejected`');
    if (id === undefined && !values.code) throw new Error('rejected resubmit: give an id, or --code C (and --since T) to resubmit every message of that code not resubmitted yet');
    if (runtime.settings.kafkaBrokers === null) throw new Error('resubmit needs the Kafka transport (KAFKA_BROKERS); on the embedded default copy the body into the inbox instead');
    const sent = await resubmit(runtime.pool, id !== undefined ? { id: Number(id) } : { where, params }, async (messages) => {
      const transport = await transportFromSettings(runtime.settings, 'faultline-resubmit');
      try {
        await transport.producer().send(messages);
      } finally {
        await transport.close();
      }
    });
    if (id !== undefined) process.stdout.write(`resubmitted #${id}\n`);
    else process.stdout.write(`resubmitted ${sent} message${sent === 1 ? '' : 's'}${values.code ? ` of code ${values.code}` : ''}${values.since ? ` rejected since ${parseSince(values.since).toISOString()}` : ''}\n`);
  } finally {
    await runtime.close();
  }
}

/**
 * Sends the chosen dead letters again and marks them resubmitted, in one transaction: the rows stay locked
 * while they are sent, so two operators resubmitting at once send each message once; a failed send marks
 * nothing (a retry may send some again, which the idempotent stores absorb). By code, only messages not
 * resubmitted yet are taken; by id, the message is sent even if it was before (the operator asked for it).
 */
export async function resubmit(pool: pg.Pool, which: { id: number } | { where: string[]; params: unknown[] }, send: (messages: OutMessage[]) => Promise<void>): Promise<number> {
  return withTransaction(pool, async (client) => {
    const { rows } = 'id' in which
      ? await client.query<Row>('select * from rejected_messages where id = $1 for update', [which.id])
      : await client.query<Row>(`select * from rejected_messages where resubmitted_at is null ${which.where.map((w) => `and ${w}`).join(' ')} order by id for update skip locked`, which.params);
    if ('id' in which && rows.length === 0) throw new Error(`no rejected message #${which.id}`);
    if (rows.length) {
      await send(rows.map((r) => resubmission(r)));
      await client.query('update rejected_messages set resubmitted_at = now() where id = any($1::bigint[])', [rows.map((r) => r.id)]);
    }
    return rows.length;
  });
}
