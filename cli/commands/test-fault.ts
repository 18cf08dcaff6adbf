// `faultline test-fault <imei> [--clear-after S] [--timeout S]` (docs/decisions.md#test-faults): starts a test
// fault for a registered device through the queue this environment configures, then follows its timeline,
// printing each step as it is recorded, until both phases are complete or the time-out passes (exit 3). While
// it waits it also sends the clearing check-in when due, so it works beside a running `faultline start` or
// with only the pipeline running; Ctrl-C leaves the clearing to the running API's clearer.
import { parseArgs } from 'node:util';
import { COMMANDS } from '../command-table.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { isImei } from '../../domain/validate-message.js';
import { openQueue } from '../../commissioning/queue.js';
import { readTestFault, sendDueClears, startTestFault } from '../../commissioning/test-faults.js';
import { STEP_TEXT, type TimelineEntry } from '../../domain/test-fault.js';
import { openRuntime } from '../runtime.js';

const TEXT_WIDTH = Math.max(...Object.values(STEP_TEXT).map((t) => t.length));
const line = (e: TimelineEntry) =>
  `  ${e.phase.padEnd(5)} ${e.text.padEnd(TEXT_WIDTH)} ${e.at}  +${e.sinceQueuedMs ?? 0} ms${e.sinceStepBeforeMs === null ? '' : ` (${e.sinceStepBeforeMs} ms after the step before)`}${e.step.startsWith('oms') ? `  ${JSON.stringify(e.detail)}` : ''}\n`;

export async function run(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: COMMANDS['test-fault'].options });
  const imei = positionals[0];
  if (!imei || !isImei(imei)) throw new Error('test-fault: give the device\'s IMEI (14 to 16 digits): faultline test-fault <imei> [--clear-after S] [--timeout S]');
  const runtime = await openRuntime();
  const queue = openQueue(runtime.settings.queue);
  try {
    const clearAfterMs = values['clear-after'] === undefined ? runtime.settings.testFaultClearMs : Number(values['clear-after']) * 1000;
    if (!Number.isInteger(clearAfterMs / 1000) || clearAfterMs < 5000 || clearAfterMs > 3_600_000) throw new Error(`test-fault --clear-after: "${values['clear-after']}" is not a whole number of seconds from 5 to 3600`);
    const timeoutMs = Number(values.timeout) * 1000;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new Error(`test-fault --timeout: "${values.timeout}" is not a positive number of seconds`);
    const { rows } = await runtime.pool.query<{ org: string }>('select "OrganizationID" as org from device_information where "IMEINumber" = $1 and deleted_at is null', [imei]);
    if (!rows[0]) throw new Error(`test-fault: device ${imei} is not registered`);
    const { id } = await startTestFault(runtime.pool, queue, { imei, organizationId: rows[0].org, startedBy: 'command line', clearAfterMs });
    process.stdout.write(`test fault ${id} for ${imei} sent to ${queue.description}; it clears itself after ${clearAfterMs / 1000} s\n`);
    const deadline = Date.now() + timeoutMs;
    let shown = 0;
    for (;;) {
      await sendDueClears(runtime.pool, queue).catch(() => 0);
      const view = await readTestFault(runtime.pool, rows[0].org, id);
      if (!view) throw new Error(`test fault ${id} disappeared`);
      for (const e of view.timeline.slice(shown)) process.stdout.write(line(e));
      shown = view.timeline.length;
      if (view.complete) {
        process.stdout.write(`test fault ${id}: complete (${view.expects.dnp3 ? 'DNP3' : 'no DNP3 integration'}, ${view.expects.iec104 ? 'IEC 104' : 'no IEC 104 integration'}, ${view.expects.oms ? 'OMS' : 'no OMS integration'})\n`);
        return;
      }
      if (Date.now() > deadline) {
        process.stdout.write(`test fault ${id}: not complete after ${timeoutMs / 1000} s; GET /api/test-faults/${id} shows it later\n`);
        // Leaving before the clearing check-in is due leaves it to the clearer of a process running the API.
        if (!view.clearSentAt) process.stdout.write(`test fault ${id}: its clearing check-in is due at ${view.clearDueAt}; a running \`faultline start\` with the API sends it\n`);
        process.exitCode = 3;
        return;
      }
      await sleep(250);
    }
  } finally {
    await queue.close();
    await runtime.close();
  }
}
