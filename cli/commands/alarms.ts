// `faultline alarms [list] [--state dead|pending|delivered|all] [--org id] [--limit N]` and
// `faultline alarms retry <id>`: alarm messages (e-mail, SMS, webhooks) still to deliver or given up after
// ALARM_MAX_AGE_HOURS, and a way to send one again. Never prints a payload or a secret.
import { parseArgs } from 'node:util';
import { COMMANDS } from '../command-table.js';
import { listAlarmDeliveries, retryAlarmDelivery } from '../../alarms/outbox.js';
import type { OutboxState } from '../../outbox/table.js';
import { openRuntime } from '../runtime.js';

const STATES: readonly OutboxState[] = ['pending', 'dead', 'delivered', 'all'];

export async function run(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args, allowPositionals: true,
    options: COMMANDS.alarms.options,
  });
  const [action = 'list', id] = positionals;
  const state = values.state as OutboxState;
  if (!STATES.includes(state)) throw new Error(`alarms list --state: one of ${STATES.join(', ')}`);
  const runtime = await openRuntime();
  try {
    if (action === 'list') {
      const rows = await listAlarmDeliveries(runtime.pool, { state, limit: Number(values.limit), ...(values.org ? { org: values.org } : {}) });
      if (rows.length === 0) process.stdout.write(`no ${state === 'all' ? '' : `${state} `}alarm messages\n`);
      for (const r of rows) {
        const status = r.suppressed ? `NOT SENT (${r.suppressed})` : r.delivered_at ? `delivered ${r.delivered_at.toISOString()}` : r.dead_at ? `DEAD ${r.dead_at.toISOString()}` : `next ${r.next_attempt_at.toISOString()}`;
        process.stdout.write(`#${r.id} ${r.OrganizationID} ${r.kind} recipient=${r.recipient_id} alarm=${r.alarm_id ?? '-'} created ${r.created_at.toISOString()} attempts=${r.attempts} ${status}\n`);
        if (r.last_error) process.stdout.write(`    ${r.last_error}\n`);
      }
    } else if (action === 'retry') {
      if (!id || !/^\d+$/.test(id)) throw new Error('alarms retry <id>: give the number shown by `faultline alarms list`');
      if (!(await retryAlarmDelivery(runtime.pool, Number(id)))) throw new Error(`no undelivered alarm message #${id}`);
      process.stdout.write(`alarm message #${id} is due now; the alarm worker sends it on its next round\n`);
    } else {
      throw new Error(`alarms: unknown action "${action}" (list | retry <id>)`);
    }
  } finally {
    await runtime.close();
  }
}
