// Scenario **baseline**: the spec's own design as written, on the same data as the other scenarios. ONE
// SQS poller, at most 10 messages a receive, 100 ms between polls; each message alone through the rules
// (domain/baseline-composition.ts `decideAsSpecWritten`: the same rules as the pipeline, composed as the spec's design runs them) with plain single-row
// statements: look up the device and its previous record and event high-water mark, INSERT the device
// record, INSERT each event, INSERT the currents row, delete the message. Only the I/O shape differs.
//
//   node --import tsx bench/baseline.bench.ts [--messages 2000] [--devices 1000] [--runs 1] [--pause-empty]
//
// Simplification: no stored Fault <50 candidates are loaded (shiftCandidates: []), and the DLQ and alert
// tables are not written; the generated data has neither repeats nor model changes, so rows are the same.
import { DeleteMessageBatchCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { loadModelMap, loadSettings } from '../config/settings.js';
import type { DeviceSnapshot } from '../domain/checkin.js';
import type { PreviousRecord } from '../domain/device-record.js';
import type { EventFilterState } from '../domain/event-filter.js';
import { decideAsSpecWritten } from '../domain/baseline-composition.js';
import { parseQueueMessage } from '../domain/validate-message.js';
import type { ModelMap } from '../domain/model-replacement.js';
import { CURRENT_COLUMNS, DM1_EVENT_COLUMNS, EVENT_COLUMNS, RECORD_COLUMNS } from '../stages/persist/rows.js';
import { benchDatabase, benchFleet, benchQueue, countRows, generateMessages, preload, progress, scenarioArgs, type ScenarioOptions, type ScenarioResult } from './common.js';
import { stats } from '../support/stats.js';

const POLL_INTERVAL_MS = 100;
const q = (name: string) => `"${name}"`;
const insertSql = (table: string, columns: readonly string[], returning = '') =>
  `insert into ${table} (${columns.map(q).join(', ')}) values (${columns.map((_, i) => `$${i + 1}`).join(', ')})${returning}`;

const RECORD_INSERT = insertSql('device_records', RECORD_COLUMNS.map((c) => c.name), ' returning "RecordID"');
const EVENT_NAMES = [...EVENT_COLUMNS.map((c) => c.name), 'DeviceRecordID'];
const DM1_NAMES = [...DM1_EVENT_COLUMNS.map((c) => c.name), 'DeviceRecordID'];
const EVENT_INSERT = insertSql('event_records', EVENT_NAMES);
const DM1_INSERT = insertSql('dm1_event_records', DM1_NAMES);
const CURRENT_INSERT = insertSql('device_currents', CURRENT_COLUMNS.map((c) => c.name));

/** One message, as the spec's single-threaded worker does it. */
async function processOne(pool: pg.Pool, body: string, messageId: string, modelMap: ModelMap): Promise<void> {
  const parsed = parseQueueMessage(body);
  if (!parsed.ok) throw new Error(`generated message rejected: ${parsed.reason}`);
  const checkIn = parsed.value;
  const imei = parsed.imei;
  const device = (await pool.query<DeviceSnapshot>(
    `select "DeviceID", "IMEINumber", "Real_Name", "Lat", "Long", "OrganizationID", "PowerLineID", "dnp3QueueAddress"
       from device_information where "IMEINumber" = $1 and deleted_at is null`, [imei])).rows[0] ?? null;
  const previous = (await pool.query<PreviousRecord & { date: Date }>(
    `select "date", "model", "AverageCurrent1m", "ActualOngoingFault" from device_records where "IMEINumber" = $1 order by "date" desc limit 1`, [imei])).rows[0];
  const eventTable = checkIn.dm1_device ? 'dm1_event_records' : 'event_records';
  const mark = (await pool.query<{ EventID: string; ReportedEventTimestamp: Date }>(
    `select "EventID", "ReportedEventTimestamp" from ${eventTable} where "IMEINumber" = $1 order by "EventID" desc limit 1`, [imei])).rows[0];
  const state: EventFilterState | null = mark ? { lastEventId: Number(mark.EventID), lastEventTimestamp: mark.ReportedEventTimestamp.toISOString() } : null;

  const decision = decideAsSpecWritten({
    checkIn, device, modelMap,
    previous: {
      record: previous ? { ...previous, date: previous.date.toISOString() } : null,
      standardEvents: checkIn.dm1_device ? null : state,
      dm1Events: checkIn.dm1_device ? state : null,
      shiftCandidates: [],
    },
  });
  if (decision.duplicate) return;

  const record = decision.record as unknown as Record<string, unknown>;
  const recordValues = RECORD_COLUMNS.map((c) => (c.name === 'source_message_id' ? messageId : record[c.name] ?? null));
  const recordId = (await pool.query<{ RecordID: string }>(RECORD_INSERT, recordValues)).rows[0]!.RecordID;
  for (const e of decision.events) {
    const row = { ...e, ReportedEventTimestamp: e.OriginalEventTimestamp, DeviceRecordID: recordId } as unknown as Record<string, unknown>;
    if (e.table === 'dm1_event_records') await pool.query(DM1_INSERT, DM1_NAMES.map((n) => row[n] ?? null));
    else await pool.query(EVENT_INSERT, EVENT_NAMES.map((n) => row[n] ?? null));
  }
  if (decision.currents) {
    const currents = decision.currents as unknown as Record<string, unknown>;
    await pool.query(CURRENT_INSERT, CURRENT_COLUMNS.map((c) => currents[c.name] ?? null));
  }
}

/**
 * `pause`: 'always' sleeps 100 ms after every receive (the brief's reading of the spec, the default);
 * 'empty' only after a receive that returned nothing (spec 8 as sqs-source.ts reads it).
 */
export async function runBaseline({ messages, devices, runs }: ScenarioOptions, { pause = 'always' }: { pause?: 'always' | 'empty' } = {}): Promise<ScenarioResult> {
  const settings = loadSettings({});
  const modelMap = loadModelMap(settings.modelMapFile);
  const perSecond: number[] = [];
  const timelines: number[][] = [];
  for (let run = 1; run <= runs; run++) {
    const fleet = benchFleet(devices);
    const data = generateMessages(fleet, messages);
    const db = await benchDatabase('bench_baseline', fleet, 2);
    const queue = await benchQueue('bench-baseline');
    try {
      progress(`baseline run ${run}: pre-loading ${messages} messages into SQS`);
      await preload(queue, data.map((d) => d.body));
      progress(`baseline run ${run}: one poller, 10 a receive, ${POLL_INTERVAL_MS} ms ${pause === 'always' ? 'between polls' : 'after an empty poll'}`);
      const started = performance.now();
      const timeline: number[] = [];
      let done = 0;
      let second = started + 1000;
      let lastSecondDone = 0;
      while (done < messages) {
        const out = await queue.client.send(new ReceiveMessageCommand({ QueueUrl: queue.url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
        const received = out.Messages ?? [];
        for (const m of received) {
          await processOne(db.pool, m.Body!, m.MessageId!, modelMap);
          done++;
        }
        if (received.length) {
          await queue.client.send(new DeleteMessageBatchCommand({ QueueUrl: queue.url, Entries: received.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })) }));
        }
        while (performance.now() >= second) {
          timeline.push(done - lastSecondDone);
          lastSecondDone = done;
          second += 1000;
          progress(`  baseline run ${run}: ${done}/${messages} stored, ${Math.round(done / ((performance.now() - started) / 1000))}/s`);
        }
        if (pause === 'always' || received.length === 0) await sleep(POLL_INTERVAL_MS);
      }
      const seconds = (performance.now() - started) / 1000;
      const stored = await countRows(db.pool);
      if (stored !== messages) throw new Error(`baseline stored ${stored} of ${messages} records`);
      perSecond.push(messages / seconds);
      timelines.push(timeline);
    } finally {
      await queue.delete();
      await db.drop();
    }
  }
  const throughput = stats(perSecond);
  return {
    scenario: 'baseline', messages, devices, throughput,
    timeline: timelines[perSecond.indexOf(throughput.median)] ?? [],
    note: `spec design: 1 SQS poller, 10 messages a receive, 100 ms ${pause === 'always' ? 'between polls' : 'after an empty poll'}, single-row INSERTs per message`,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runBaseline(scenarioArgs({ messages: 2000, devices: 1000, runs: 1 }), { pause: process.argv.includes('--pause-empty') ? 'empty' : 'always' })
    .then((r) => { process.stdout.write(`${JSON.stringify(r, null, 2)}\n`); })
    .catch((err: unknown) => { console.error(err); process.exit(1); });
}
