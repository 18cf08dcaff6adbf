// `faultline rejected`: what the pipeline refused and why; `rejected resubmit <id>` sends the raw body
// through the pipeline again (after the device was registered, or a rule was fixed).
import { parseArgs } from 'node:util';
import { COMMANDS } from '../command-table.js';
import { randomUUID } from 'node:crypto';
import { TOPICS } from '../../schemas/avro/topics.js';
import type { RawMessage } from '../../schemas/avro/values.js';
import { transportFromSettings } from '../../stages/runtime/transport/from-settings.js';
import { openRuntime } from '../runtime.js';

export async function run(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: COMMANDS.rejected.options });
  const [action = 'list', id] = positionals;
  const runtime = await openRuntime();
  try {
    if (action === 'list') {
      const { rows } = await runtime.pool.query<{ id: number; stage: string; code: string; reason: string; imei: string | null; rejected_at: Date; resubmitted_at: Date | null }>(
        'select id, stage, code, reason, imei, rejected_at, resubmitted_at from rejected_messages order by id desc limit $1', [Number(values.limit)],
      );
      if (rows.length === 0) process.stdout.write('no rejected messages\n');
      for (const r of rows) {
        process.stdout.write(`#${r.id} ${r.rejected_at.toISOString()} ${r.stage} ${r.code} imei=${r.imei ?? '-'}${r.resubmitted_at ? ' (resubmitted)' : ''}\n    ${r.reason}\n`);
      }
    } else if (action === 'resubmit') {
      if (!id || !/^\d+$/.test(id)) throw new Error('rejected resubmit <id>: give the number shown by `faultline rejected`');
      const { rows } = await runtime.pool.query<{ body: string; imei: string | null }>('select body, imei from rejected_messages where id = $1', [Number(id)]);
      const row = rows[0];
      if (!row) throw new Error(`no rejected message #${id}`);
      if (runtime.settings.kafkaBrokers === null) throw new Error('resubmit needs the Kafka transport (KAFKA_BROKERS); on the embedded default copy the body into the inbox instead');
      const transport = await transportFromSettings(runtime.settings, 'faultline-resubmit');
      try {
        const raw: RawMessage = { messageId: `resubmit-${id}-${randomUUID()}`, source: 'resubmit', receivedAt: Date.now(), imei: row.imei ?? '', body: row.body };
        await transport.producer().send([{ topic: TOPICS.raw, key: raw.imei || raw.messageId, value: raw }]);
      } finally {
        await transport.close();
      }
      await runtime.pool.query('update rejected_messages set resubmitted_at = now() where id = $1', [Number(id)]);
      process.stdout.write(`resubmitted #${id}\n`);
    } else {
      throw new Error(`rejected: unknown action "${action}" (list | resubmit <id>)`);
    }
  } finally {
    await runtime.close();
  }
}
