// `faultline outbox [list] [--state pending|dead|delivered|all] [--integration id] [--limit N]` and
// `faultline outbox retry <id>` and `faultline outbox resync <integration> [--all]` (multispeak/resync.ts): the MultiSpeak notifications still to deliver, those given up, and a
// way to send a given-up one again once the OMS is fixed, or every device's current state. Never prints payload credentials (there are
// none in the outbox: they live encrypted on the integration).
import { parseArgs } from 'node:util';
import { COMMANDS } from '../command-table.js';
import { listOutbox, retryOutbox, type OutboxState } from '../../multispeak/delivery/admin.js';
import { resyncIntegration } from '../../multispeak/delivery/resync.js';
import { openRuntime } from '../runtime.js';

const STATES: readonly OutboxState[] = ['pending', 'dead', 'delivered', 'all'];

export async function run(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args, allowPositionals: true,
    options: COMMANDS.outbox.options,
  });
  const [action = 'list', id] = positionals;
  const state = values.state as OutboxState;
  if (!STATES.includes(state)) throw new Error(`outbox list --state: one of ${STATES.join(', ')}`);
  const runtime = await openRuntime();
  try {
    if (action === 'list') {
      const rows = await listOutbox(runtime.pool, { state, limit: Number(values.limit), integration: values.integration });
      if (rows.length === 0) process.stdout.write(`no ${state === 'all' ? '' : `${state} `}outbox rows\n`);
      for (const r of rows) {
        const status = r.delivered_at ? `delivered ${r.delivered_at.toISOString()}` : r.dead_at ? `DEAD ${r.dead_at.toISOString()}` : `next ${r.next_attempt_at.toISOString()}`;
        process.stdout.write(`#${r.id} ${r.integration_id} ${r.kind} imei=${r.IMEINumber} created ${r.created_at.toISOString()} attempts=${r.attempts} ${status}\n`);
        if (r.last_error) process.stdout.write(`    ${r.last_error}\n`);
      }
    } else if (action === 'retry') {
      if (!id || !/^\d+$/.test(id)) throw new Error('outbox retry <id>: give the number shown by `faultline outbox list --state dead`');
      if (!(await retryOutbox(runtime.pool, Number(id)))) throw new Error(`no undelivered outbox row #${id}`);
      process.stdout.write(`outbox row #${id} is due now; the delivery worker sends it on its next round\n`);
    } else if (action === 'resync') {
      if (!id) throw new Error('outbox resync <integration>: give the integration id (as in `faultline outbox list`)');
      const r = await resyncIntegration(runtime.pool, id, { all: values.all });
      process.stdout.write(`${r.integration}: ${r.queued} of ${r.devices} devices queued${values.all ? '' : ' (the others\' current state is already delivered or pending; --all sends every one)'}\n`);
    } else {
      throw new Error(`outbox: unknown action "${action}" (list | retry <id> | resync <integration> [--all])`);
    }
  } finally {
    await runtime.close();
  }
}
