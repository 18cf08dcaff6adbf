// The DNP3 outstation under a real opendnp3 master (yadnp3, bench/dnp3_master.py) over mutual TLS, with
// one organisation of N devices (default 10,000: 80,000 binary and 80,000 device analog points) mapped, each
// with a stored check-in (persistBatch), so every point has a value. Past 8,000 devices the organisation is
// served as banks (dnp3/data/point-map.ts): 10,000 devices are bank 0 (slots 0..7999) at link address 10 and
// bank 1 (8000..9999) at 11, each with its own heartbeat; the master has one association per bank on the
// one TLS channel.
//
//  1. Poll response time: the master's integrity poll (READ class 1/2/3/0, one task) of each bank alone, and
//     of all banks at once (one READ per association, started together; opendnp3 runs one channel's tasks
//     one after the other), timed in the master from the request to its first response fragment and to the
//     task's end (every fragment confirmed).
//  2. SQS to master: `faultline start --only bridge,<all stages>` as a child process (Kafka transport, its
//     own SQS queue), the outstation in this process, the master with unsolicited responses enabled (the
//     opendnp3 start-up sequence enables classes 1/2/3; no event polls). One permanent-fault check-in
//     (Ongoing_fault 4 with a PFault event) at a time is sent to SQS; the clock runs from SendMessage to the
//     master receiving the g2 event of that device's "permanent fault" binary (8*local slot+1, from its
//     bank's address). A LISTEN on
//     dnp3_change splits each latency at the commit of the stored check-in: SQS -> Postgres (bridge and
//     stages) and Postgres -> master (feed, outstation, TLS).
//
//   npm run bench:dnp3 -- [--devices 10000] [--polls 7] [--faults 50] [--part both|poll|latency]
//
// Needs infra/ (started here with infra/up.sh) and python3 for the yadnp3 venv (test/interop/dnp3/setup-yadnp3.sh).
// Writes bench/results/dnp3-<devices>.json and .md (dnp3-10000 by default; a small trial never overwrites
// the 10,000-device figures). Progress on stderr.
import { execSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { CreateQueueCommand, DeleteQueueCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import pg from 'pg';
import { infraEnv } from '../infra/endpoints.js';
import { loadSettings } from '../config/settings.js';
import { parseQueueMessageOrThrow } from '../domain/validate-message.js';
import { importReferenceData } from '../reference-data/index.js';
import { createRegistry } from '../schemas/registry.js';
import { TOPICS } from '../schemas/avro/topics.js';
import { Keyring } from '../secrets/keyring.js';
import { generateImei } from '../simulator/index.js';
import { persistBatch } from '../stages/persist/index.js';
import { createSqsClient } from '../stages/bridge/sqs-client.js';
import { registryCodec } from '../stages/runtime/codec.js';
import { kafkaTransport } from '../stages/runtime/transport/kafka.js';
import { percentile, stats } from '../support/stats.js';
import { startDnp3Service } from '../dnp3/service.js';
import { bankAddress, bankOf, binaryIndex, localSlot, pointMapBanks } from '../dnp3/data/point-map.js';
import type { PointMapBank } from '../dnp3/data/point-map.js';
import { computed } from '../support/checkins.js';
import { resetPipelineTopics } from '../support/kafka.js';
import { pythonWithYadnp3 } from '../support/dnp3-master.js';
import { machineInfo } from '../support/machine.js';
import { cpuDelta, cpuSnapshot, treeCpuSeconds } from './process-cpu.js';
import { createTestDatabase } from '../support/database.js';

const { values } = parseArgs({
  options: {
    devices: { type: 'string', default: '10000' }, polls: { type: 'string', default: '7' }, faults: { type: 'string', default: '50' },
    part: { type: 'string', default: 'both' }, partitions: { type: 'string', default: '6' },
  },
});
const DEVICES = Number(values.devices);
const POLLS = Number(values.polls);
const FAULTS = Number(values.faults);
const PARTITIONS = Number(values.partitions);
const PART = values.part as 'both' | 'poll' | 'latency';
if (!['both', 'poll', 'latency'].includes(PART)) throw new Error(`--part: both, poll or latency, got ${PART}`);
/** Plain check-ins that bring the child's consumer groups up before the clock runs; their devices never fault. */
const WARM = PARTITIONS * 4;
if (PART !== 'poll' && DEVICES < FAULTS + WARM) throw new Error(`--devices must be at least faults + ${WARM}`);
const FAULT_TIMEOUT_MS = 60_000;
const ORG = 'bench';
const OUTSTATION_ADDRESS = 10;
/** The banks the outstation serves for DEVICES devices (slots 0..DEVICES-1), with their expected point counts. */
const BANKS: PointMapBank[] = pointMapBanks(DEVICES - 1, { outstationAddress: OUTSTATION_ADDRESS });
const ANALOG_POINTS = BANKS.reduce((n, b) => n + b.analogPoints, 0);
const root = new URL('..', import.meta.url).pathname;
const env = { ...infraEnv(), ...process.env } as Record<string, string>;
const say = (s: string) => process.stderr.write(`${s}\n`);

// ---------------------------------------------------------------------------------------------------------
// Data: a fresh database, one organisation, N devices, one DNP3 integration, one stored check-in each.


const iso = (ms: number) => new Date(ms).toISOString();

/** A queue message as the socket server writes it (the shape of fixture 002); `fault`: a permanent fault with its PFault event. */
function checkInBody(imei: string, i: number, dateMs: number, fault: boolean): string {
  const load = 80 + (i % 300); // above LOW_CURRENT_A, so a reported permanent fault stays permanent
  return JSON.stringify({
    device_data: {
      IMEINumber: imei, model: 'FCI-3000', version: '4.2.1', date: iso(dateMs), rssi: -71, current_status: 1, master: 0,
      statusPacket: '0A1F', eventPacket: '00', LEDDuration: 4, LEDTimer: 8, BatteryMCU: 3.6, BatteryLED: 3.58, State: 0, FaultType: 0,
      BatteryOrLine: 0, FastMode: 0, Calibrated: 1, AverageCurrent1m: load + 0.5, PrefaultCurrent: load, AverageCurrent1h: load + 1,
      PeakCurrent24h: load * 1.7, Tempfault_Reset_Hours: '2', Permfault_Reset_Hours: 8, SOTF: 0, Brightness: 'High', Current_Reset: 'Auto',
      Block_Reset: 0, Ongoing_fault: fault ? 4 : 0, channel: 3, gps_long: -87.6, gps_lat: 41.8, Program: 'STD-7', ConnectTime: 14, Temperature: 20 + (i % 10),
    },
    events: fault ? [{ EventID: 1000, EventTimestamp: iso(dateMs - 30_000), EventType: 'PFault', PrefaultCurrent: load, FaultCurrent: 800 + (i % 100), RecoverCurrent: 0 }] : [],
    currents: { PeakCurrent: load * 1.7, PeakCurrentTimestamp: iso(dateMs - 3_600_000), HourlyAverages: Array.from({ length: 24 }, (_, h) => load + h / 2) },
    dm1_device: false,
  });
}

async function loadFleet(pool: pg.Pool, imeis: string[], dateMs: number): Promise<number> {
  await importReferenceData(pool, {
    organizations: [{ OrganizationID: ORG, name: 'Bench Utility' }], powerLines: [], groups: [], users: [],
    integrations: [{ id: 'bench-scada', OrganizationID: ORG, kind: 'dnp3', channel: 'A', masterIdentity: 'scada.north.example', outstationAddress: OUTSTATION_ADDRESS, masterAddress: 1 }],
    devices: imeis.map((imei, i) => ({ IMEINumber: imei, OrganizationID: ORG, Real_Name: `Bench ${i}`, Lat: 41, Long: -87, dnp3QueueAddress: 'dnp3.bench' })),
  }, { keyring: new Keyring([{ id: 'bench', key: Buffer.alloc(32, 1) }]) });
  const started = performance.now();
  for (let i = 0; i < imeis.length; i += 1000) {
    const batch = imeis.slice(i, i + 1000).map((imei, j) => computed(parseQueueMessageOrThrow(checkInBody(imei, i + j, dateMs, false)), { source: 'bench' }));
    await persistBatch(pool, batch);
  }
  return (performance.now() - started) / 1000;
}

// ---------------------------------------------------------------------------------------------------------
// The master: bench/dnp3_master.py, one JSON line per answer; binary events stream in after `watch`.

interface PollAnswer { cmd: 'integrity'; address: number; firstMs: number | null; completeMs: number | null; result: string; fragments: number; binary: number; analog: number; events: number }
interface AllBanksAnswer { cmd: 'integrity'; address: 'all'; completeMs: number | null; banks: Record<string, PollAnswer> }
interface StartupBank { integrityMs: number | null; integrityResult: string | null; unsolicited: string | null; binary: number; analog: number }
interface StartupAnswer { cmd: 'startup'; integrityMs: number | null; integrityResult: string | null; unsolicited: string | null; banks: Record<string, StartupBank>; error?: string }
interface BinaryEvent { ev: 'binary'; outstation: number; index: number; value: boolean; unsolicited: boolean; t: number }

class BenchMaster {
  readonly child: ChildProcess;
  private readonly answers: ((line: unknown) => void)[] = [];
  private readonly queued: unknown[] = [];
  private eventWaiters: { outstation: number; index: number; resolve: (e: BinaryEvent) => void }[] = [];
  readonly unmatched: BinaryEvent[] = [];

  /** `addresses`: one association per bank on the one channel. */
  constructor(port: number, certs: { ca: string; cert: string; key: string }, addresses: number[]) {
    this.child = spawn(pythonWithYadnp3(), [join(root, 'bench/dnp3_master.py'), String(port), certs.ca, certs.cert, certs.key, addresses.join(',')], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.child.stdin!.on('error', () => {}); // EPIPE after the master died: its exit is reported instead
    createInterface({ input: this.child.stdout! }).on('line', (line) => this.onLine(line));
  }

  private onLine(line: string): void {
    const msg = JSON.parse(line) as { ev?: string } & Record<string, unknown>;
    if (msg.ev === 'binary') {
      const e = msg as unknown as BinaryEvent;
      const w = e.value ? this.eventWaiters.find((x) => x.outstation === e.outstation && x.index === e.index) : undefined;
      if (w) {
        this.eventWaiters = this.eventWaiters.filter((x) => x !== w);
        w.resolve(e);
      } else this.unmatched.push(e);
      return;
    }
    const next = this.answers.shift();
    if (next) next(msg);
    else this.queued.push(msg);
  }

  private answer<T>(): Promise<T> {
    const q = this.queued.shift();
    if (q !== undefined) return Promise.resolve(q as T);
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`master exited (${code})`));
      this.child.once('exit', onExit);
      this.answers.push((m) => { this.child.off('exit', onExit); resolve(m as T); });
    });
  }

  startup(): Promise<StartupAnswer> { return this.answer<StartupAnswer>(); }

  command<T>(cmd: `integrity ${number | 'all'}` | 'watch'): Promise<T> {
    this.child.stdin!.write(`${cmd}\n`);
    return this.answer<T>();
  }

  /** The next binary event with value true at `index` of outstation `outstation` (an earlier one, already arrived, counts too). */
  binaryTrue(outstation: number, index: number, timeoutMs: number): Promise<BinaryEvent | undefined> {
    const early = this.unmatched.findIndex((e) => e.outstation === outstation && e.index === index && e.value);
    if (early >= 0) return Promise.resolve(this.unmatched.splice(early, 1)[0]);
    return new Promise((resolve) => {
      const waiter = { outstation, index, resolve: (e: BinaryEvent) => { clearTimeout(timer); resolve(e); } };
      const timer = setTimeout(() => { this.eventWaiters = this.eventWaiters.filter((x) => x !== waiter); resolve(undefined); }, timeoutMs);
      this.eventWaiters.push(waiter);
    });
  }

  async stop(): Promise<void> {
    this.child.stdin!.write('quit\n');
    await new Promise((r) => { this.child.once('exit', r); setTimeout(r, 5000); });
    if (this.child.exitCode === null) this.child.kill('SIGTERM');
  }
}

// ---------------------------------------------------------------------------------------------------------
// Figures.

const r1 = (n: number) => Math.round(n * 10) / 10;

type Cpu = Record<string, number>;
/** CPU seconds of infra servers, this process (the outstation) and the named child processes. */
function cpuNow(children: Record<string, number | undefined>): Cpu {
  const snap = cpuSnapshot();
  const out: Cpu = { 'outstation (bench process)': snap.faultline! };
  delete snap.faultline;
  for (const [name, pid] of Object.entries(children)) if (pid) out[name] = treeCpuSeconds(pid);
  return { ...out, ...snap };
}
function perSecond(before: Cpu, after: Cpu, seconds: number): Cpu {
  return Object.fromEntries(Object.entries(cpuDelta(before, after)).map(([k, v]) => [k, Math.round((v / seconds) * 100) / 100]));
}
/** The process with the most CPU per second; below half a core nobody is CPU-bound and the time is spent waiting. */
function bottleneck(cpu: Cpu): { process: string; cpuPerSecond: number; cpuBound: boolean } {
  const [name, v] = Object.entries(cpu).sort((a, b) => b[1] - a[1])[0]!;
  return { process: name, cpuPerSecond: v, cpuBound: v >= 0.5 };
}

interface BankPoll {
  bank: number;
  address: number;
  binary: number;
  analog: number;
  fragments: number;
  firstMs: ReturnType<typeof stats>;
  completeMs: ReturnType<typeof stats>;
  msPerFragment: ReturnType<typeof stats>;
}
interface PollPart {
  /** Each bank polled alone. */
  banks: BankPoll[];
  /** All banks: one READ per association started together, until the last one ended. */
  allMs: ReturnType<typeof stats>;
  /** The same polls' fragments, summed over the banks. */
  allFragments: number;
  rounds: { banks: PollAnswer[]; all: AllBanksAnswer }[];
  cpuPerSecond: Cpu;
  bottleneck: ReturnType<typeof bottleneck>;
}

function checkPoll(a: PollAnswer | undefined, bank: PointMapBank, what: string): PollAnswer {
  if (!a || a.completeMs === null || a.firstMs === null || !a.result.endsWith('SUCCESS')) throw new Error(`${what} failed: ${JSON.stringify(a)}`);
  if (a.binary !== bank.binaryPoints || a.analog !== bank.analogPoints) {
    throw new Error(`${what}: ${a.binary} binary and ${a.analog} analog values, expected ${bank.binaryPoints} and ${bank.analogPoints}`);
  }
  return a;
}

async function pollPart(master: BenchMaster, pids: Record<string, number | undefined>): Promise<PollPart> {
  say(`poll: ${POLLS} rounds of integrity polls (class 1/2/3/0): each of ${BANKS.length} bank(s) alone, then all at once`);
  const rounds: PollPart['rounds'] = [];
  const before = cpuNow(pids);
  const started = performance.now();
  for (let i = 1; i <= POLLS; i++) {
    const banks: PollAnswer[] = [];
    for (const bank of BANKS) {
      const a = checkPoll(await master.command<PollAnswer>(`integrity ${bank.outstationAddress}`), bank, `round ${i}, bank ${bank.bank}`);
      say(`  round ${i}/${POLLS}, bank ${bank.bank} (address ${bank.outstationAddress}): first fragment ${r1(a.firstMs!)} ms, complete ${r1(a.completeMs!)} ms, ${a.fragments} fragments`);
      banks.push(a);
    }
    const all = await master.command<AllBanksAnswer>('integrity all');
    if (all.completeMs === null) throw new Error(`round ${i}, all banks failed: ${JSON.stringify(all)}`);
    for (const bank of BANKS) checkPoll(all.banks[String(bank.outstationAddress)], bank, `round ${i}, all banks, bank ${bank.bank}`);
    say(`  round ${i}/${POLLS}, all banks at once: complete ${r1(all.completeMs)} ms`);
    rounds.push({ banks, all });
  }
  const cpuPerSecond = perSecond(before, cpuNow(pids), (performance.now() - started) / 1000);
  return {
    banks: BANKS.map((bank, b) => {
      const polls = rounds.map((r) => r.banks[b]!);
      return {
        bank: bank.bank, address: bank.outstationAddress, binary: bank.binaryPoints, analog: bank.analogPoints, fragments: polls[0]!.fragments,
        firstMs: stats(polls.map((p) => p.firstMs!)), completeMs: stats(polls.map((p) => p.completeMs!)),
        msPerFragment: stats(polls.map((p) => p.completeMs! / p.fragments)),
      };
    }),
    allMs: stats(rounds.map((r) => r.all.completeMs!)),
    allFragments: Object.values(rounds[0]!.all.banks).reduce((n, a) => n + a.fragments, 0),
    rounds,
    cpuPerSecond,
    bottleneck: bottleneck(cpuPerSecond),
  };
}

interface Latency { total: number[]; toStored: number[]; storedToMaster: number[] }
interface LatencyPart {
  faults: number;
  received: number;
  lost: number;
  unsolicited: boolean;
  totalMs: { p50: number; p95: number; max: number; min: number };
  toStoredMs: { p50: number; p95: number; max: number; min: number };
  storedToMasterMs: { p50: number; p95: number; max: number; min: number };
  warmUpSeconds: number;
  cpuPerSecond: Cpu;
  bottleneck: ReturnType<typeof bottleneck>;
}
const dist = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? { p50: NaN, p95: NaN, max: NaN, min: NaN }
    : { p50: r1(percentile(s, 50)), p95: r1(percentile(s, 95)), max: r1(s.at(-1)!), min: r1(s[0]!) };
};

async function latencyPart(
  db: { pool: pg.Pool; url: string }, master: BenchMaster, imeis: string[], slotOf: Map<string, number>, cpuPids: Record<string, number | undefined>,
): Promise<LatencyPart> {
  say(`latency: pipeline child process, ${FAULTS} permanent faults through SQS, one at a time`);
  await resetPipelineTopics(['dnp3.bench']);
  const transport = kafkaTransport({ brokers: env.KAFKA_BROKERS!.split(','), codec: await registryCodec(createRegistry(env.SCHEMA_REGISTRY_URL!)), partitions: PARTITIONS, sessionTimeoutMs: 10_000 });
  await transport.ensureTopics(Object.values(TOPICS));
  await transport.close();

  const sqs = createSqsClient({ queueUrl: env.SQS_QUEUE_URL!, endpoint: env.SQS_ENDPOINT! });
  const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `dnp3-bench-${Date.now()}` }))).QueueUrl!;
  const child = spawn(process.execPath, ['bin/faultline.js', 'start', '--only', 'bridge,enrich,dedup,fault-compute,persist,notify,rejected'], {
    cwd: root, stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env, KAFKA_BROKERS: env.KAFKA_BROKERS, SCHEMA_REGISTRY_URL: env.SCHEMA_REGISTRY_URL, DATABASE_URL: db.url,
      SQS_QUEUE_URL: queueUrl, SQS_ENDPOINT: env.SQS_ENDPOINT, KAFKA_PARTITIONS: String(PARTITIONS), KAFKA_SESSION_TIMEOUT_MS: '10000', LOG_LEVEL: 'error',
    },
  });
  const listener = new pg.Client({ connectionString: db.url });
  try {
    const stored = async () => Number((await db.pool.query('select count(*) from device_records')).rows[0].count);
    const send = (body: string) => sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));

    // Warm-up: one plain check-in per device of the last WARM slots, until all are stored (every stage joined).
    const warmStart = performance.now();
    const before = await stored();
    const warmDevices = imeis.slice(-WARM);
    for (const [i, imei] of warmDevices.entries()) await send(checkInBody(imei, i, Math.floor(Date.now() / 1000) * 1000 - 300_000, false));
    let lastSay = warmStart;
    while ((await stored()) < before + WARM) {
      if (child.exitCode !== null) throw new Error(`pipeline child exited (${child.exitCode})`);
      if (performance.now() - warmStart > 180_000) throw new Error('warm-up: check-ins not stored after 180 s');
      if (performance.now() - lastSay > 5000) { say(`  warm-up: ${(await stored()) - before}/${WARM} stored`); lastSay = performance.now(); }
      await new Promise((r) => setTimeout(r, 200));
    }
    const warmUpSeconds = (performance.now() - warmStart) / 1000;
    say(`  warm-up done in ${r1(warmUpSeconds)} s`);
    await new Promise((r) => setTimeout(r, 2000)); // the warm-up's own events reach the master and are confirmed

    // Commits of stored check-ins, as the outstation's feed hears them.
    const commits: bigint[] = [];
    await listener.connect();
    listener.on('notification', () => commits.push(process.hrtime.bigint()));
    await listener.query('listen dnp3_change');
    await master.command('watch');

    const lat: Latency = { total: [], toStored: [], storedToMaster: [] };
    let unsolicited = true;
    let lost = 0;
    const pids = { ...cpuPids, 'pipeline (child process)': child.pid };
    const cpuBefore = cpuNow(pids);
    const started = performance.now();
    const candidates = imeis.slice(0, imeis.length - WARM);
    const stride = Math.max(1, Math.floor(candidates.length / FAULTS));
    for (let f = 0; f < FAULTS; f++) {
      const imei = candidates[f * stride]!;
      const slot = slotOf.get(imei)!;
      const body = checkInBody(imei, f * stride, Math.floor(Date.now() / 1000) * 1000, true);
      commits.length = 0;
      const t0 = process.hrtime.bigint();
      await send(body);
      const e = await master.binaryTrue(bankAddress(OUTSTATION_ADDRESS, bankOf(slot)), binaryIndex(localSlot(slot), 1), FAULT_TIMEOUT_MS);
      if (!e) { lost++; say(`  fault ${f + 1}/${FAULTS}: slot ${slot}: no event within ${FAULT_TIMEOUT_MS / 1000} s`); continue; }
      const t = BigInt(e.t);
      unsolicited &&= e.unsolicited;
      const commit = commits.find((c) => c > t0 && c <= t);
      const total = Number(t - t0) / 1e6;
      lat.total.push(total);
      if (commit !== undefined) {
        lat.toStored.push(Number(commit - t0) / 1e6);
        lat.storedToMaster.push(Number(t - commit) / 1e6);
      }
      if ((f + 1) % 10 === 0 || f === 0) say(`  fault ${f + 1}/${FAULTS}: slot ${slot}: ${r1(total)} ms${commit ? ` (stored after ${r1(Number(commit - t0) / 1e6)} ms)` : ''}`);
      // A pause that is not a multiple of any poll or tick period, so the faults do not lock onto one phase.
      await new Promise((r) => setTimeout(r, 150 + Math.floor(Math.random() * 250)));
    }
    const cpuPerSecond = perSecond(cpuBefore, cpuNow(pids), (performance.now() - started) / 1000);
    return {
      faults: FAULTS, received: lat.total.length, lost, unsolicited,
      totalMs: dist(lat.total), toStoredMs: dist(lat.toStored), storedToMasterMs: dist(lat.storedToMaster),
      warmUpSeconds: r1(warmUpSeconds), cpuPerSecond, bottleneck: bottleneck(cpuPerSecond),
    };
  } finally {
    await listener.end().catch(() => {});
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
    await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl })).catch(() => {});
    sqs.destroy();
  }
}

// ---------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  say(`dnp3 bench: ${DEVICES} devices (${8 * DEVICES} binary, ${ANALOG_POINTS} analog points in ${BANKS.length} bank(s)), ${PART === 'latency' ? '' : `${POLLS} polls, `}${PART === 'poll' ? '' : `${FAULTS} faults`}`);
  execSync('bash infra/up.sh', { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  execSync('bash infra/certs.sh', { cwd: root, stdio: 'ignore' });
  pythonWithYadnp3(); // create the venv now, not inside a timed section
  const certs = join(root, '.infra/certs');
  const pem = (n: string) => join(certs, `${n}.pem`);

  const db = await createTestDatabase('bench_dnp3', { poolMax: 8 });
  let service: Awaited<ReturnType<typeof startDnp3Service>> | undefined;
  let master: BenchMaster | undefined;
  try {
    const imeis = Array.from({ length: DEVICES }, (_, i) => generateImei('35899', i));
    say(`  importing ${DEVICES} devices and storing one check-in each (persistBatch)`);
    const preloadSeconds = await loadFleet(db.pool, imeis, Math.floor(Date.now() / 1000) * 1000 - 600_000);

    say('  starting the outstation (mutual TLS): slots and the first load of every device');
    let t = performance.now();
    service = await startDnp3Service({
      pool: db.pool, port: 0, host: '127.0.0.1', offlineAfterHours: loadSettings({}).offlineAfterHours,
      tlsFiles: { key: pem('outstation.test-key'), cert: pem('outstation.test'), ca: pem('ca') },
      onError: (err) => say(`  outstation error: ${(err as Error).message}`),
    });
    const serviceStartSeconds = (performance.now() - t) / 1000;
    const slotOf = new Map((await db.pool.query<{ imei: string; slot: number }>(`select "IMEINumber" as imei, slot from dnp3_slots where "OrganizationID" = $1`, [ORG])).rows.map((r) => [r.imei, r.slot]));
    if (slotOf.size !== DEVICES) throw new Error(`${slotOf.size} slots for ${DEVICES} devices`);

    say('  master start-up: connect, integrity poll, time sync, enable unsolicited');
    t = performance.now();
    master = new BenchMaster(service.server.port, { ca: pem('ca'), cert: pem('scada.north.example'), key: pem('scada.north.example-key') }, BANKS.map((b) => b.outstationAddress));
    const startup = await master.startup();
    if (startup.error || Object.values(startup.banks ?? {}).length !== BANKS.length || Object.values(startup.banks).some((b) => !b.integrityResult?.endsWith('SUCCESS'))) {
      throw new Error(`master start-up failed: ${JSON.stringify(startup)}`);
    }
    const masterStartupSeconds = (performance.now() - t) / 1000;
    say(`  master ready in ${r1(masterStartupSeconds)} s (unsolicited: ${startup.unsolicited})`);
    const pids = { 'master (yadnp3)': master.child.pid };

    const poll = PART === 'latency' ? undefined : await pollPart(master, pids);
    const latency = PART === 'poll' ? undefined : await latencyPart(db, master, imeis, slotOf, pids);

    const result = {
      scenario: 'dnp3', machine: machineInfo(), devices: DEVICES, binaryPoints: 8 * DEVICES, analogPoints: ANALOG_POINTS,
      banks: BANKS,
      setup: { preloadSeconds: r1(preloadSeconds), outstationStartSeconds: r1(serviceStartSeconds), masterStartupSeconds: r1(masterStartupSeconds), unsolicitedEnabled: startup.unsolicited },
      ...(poll ? { poll } : {}), ...(latency ? { latency } : {}),
    };
    const name = `dnp3-${DEVICES}`;
    writeFileSync(new URL(`./results/${name}.json`, import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
    const md = report(result.machine, { preloadSeconds, serviceStartSeconds, masterStartupSeconds }, poll, latency);
    writeFileSync(new URL(`./results/${name}.md`, import.meta.url), md);
    process.stdout.write(`${md}\n`);
  } finally {
    await master?.stop();
    await service?.close();
    await db.drop();
  }
}

function cpuTable(cpu: Cpu): string[] {
  return ['| process | CPU/s |', '|---|---|', ...Object.entries(cpu).sort((a, b) => b[1] - a[1]).map(([k, v]) => `| ${k} | ${v} |`)];
}

function bottleneckLine(b: ReturnType<typeof bottleneck>, waiting: string): string {
  return b.cpuBound
    ? `Bottleneck: **${b.process}** (${b.cpuPerSecond} CPU seconds per second).`
    : `Bottleneck: no process is CPU-bound (the busiest, ${b.process}, used ${b.cpuPerSecond} CPU seconds per second): ${waiting}`;
}

function report(
  m: ReturnType<typeof machineInfo>, setup: { preloadSeconds: number; serviceStartSeconds: number; masterStartupSeconds: number },
  poll: PollPart | undefined, latency: LatencyPart | undefined,
): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const lines = [
    '# DNP3 outstation: integrity poll response time and SQS-to-master latency',
    '',
    `${m.date} · commit ${m.commit} · Node ${m.node} · ${m.cores} cores (${m.cpu}) · ${m.memoryGiB} GiB`,
    '',
    `${n(DEVICES)} devices of one organisation mapped: ${n(8 * DEVICES)} binary and ${n(ANALOG_POINTS)} analog points (a heartbeat per bank), every device with a stored check-in, ` +
      `in ${BANKS.length} bank(s) of up to 8,000 devices: ${BANKS.map((b) => `bank ${b.bank} at link address ${b.outstationAddress} (slots ${n(b.firstSlot)}..${n(b.lastSlot)}, ${n(b.binaryPoints)} + ${n(b.analogPoints)} points)`).join(', ')}. ` +
      'Master: opendnp3 (PyPI yadnp3 3.2.1.4, bench/dnp3_master.py with the interop test\'s test/interop/dnp3/yadnp3_common.py), one association per bank on one mutual-TLS channel (infra/certs.sh); outstation `startDnp3Service` in the bench process.',
    '',
    `Set-up: storing the check-ins ${r1(setup.preloadSeconds)} s; outstation start (slots, first load) ${r1(setup.serviceStartSeconds)} s; ` +
      `master start-up (connect, integrity poll, time sync, enable unsolicited) ${r1(setup.masterStartupSeconds)} s.`,
    '',
  ];
  if (poll) {
    const perFragment = Math.max(...poll.banks.map((b) => b.msPerFragment.median));
    lines.push(
      `## Integrity poll (READ class 1/2/3/0), ${poll.rounds.length} rounds`,
      '',
      'Timed in the master from the request to its first response fragment and to the end of the task (every fragment received and confirmed). ' +
        'Each round polls every bank alone, then all banks at once (one READ per association, started together; opendnp3 runs the tasks of one channel one after the other).',
      '',
      '| poll | points | fragments | first fragment, ms (median, min–max) | complete, ms (median, min–max) | per fragment, ms |',
      '|---|---|---|---|---|---|',
      ...poll.banks.map((b) => `| bank ${b.bank}, address ${b.address} | ${n(b.binary)} + ${n(b.analog)} | ${b.fragments} | ${r1(b.firstMs.median)} (${r1(b.firstMs.min)}–${r1(b.firstMs.max)}) | ` +
        `${r1(b.completeMs.median)} (${r1(b.completeMs.min)}–${r1(b.completeMs.max)}) | ${r1(b.msPerFragment.median)} |`),
      `| **all banks (total)** | ${n(8 * DEVICES)} + ${n(ANALOG_POINTS)} | ${poll.allFragments} | | **${r1(poll.allMs.median)}** (${r1(poll.allMs.min)}–${r1(poll.allMs.max)}) | ${r1(poll.allMs.median / poll.allFragments)} |`,
      '',
      'CPU seconds per wall second during the polls (1.0 = one core busy):',
      '',
      ...cpuTable(poll.cpuPerSecond),
      '',
      bottleneckLine(poll.bottleneck, 'the time goes to round trips, one per fragment (response, CONFIRM, next fragment).'),
      '',
      ...(perFragment > 30 ? [
        `${r1(perFragment)} ms per fragment on loopback is not work but a timer: the outstation writes each fragment as several ` +
          'small writes (one per link frame) on a socket without TCP_NODELAY, so Nagle holds the tail until the master\'s delayed ACK (40 ms on Linux).',
        '',
      ] : []),
    );
  }
  if (latency) {
    lines.push(
      `## SQS to master, ${latency.faults} permanent faults`,
      '',
      '`faultline start --only bridge,enrich,dedup,fault-compute,persist,notify,rejected` (Kafka transport, its own SQS queue) as a child process; ' +
        `the master receives ${latency.unsolicited ? 'unsolicited responses (classes 1/2/3 enabled at start-up, no event polls)' : 'events (not all of them unsolicited)'}. ` +
        'One fault check-in (Ongoing_fault 4, a PFault event) at a time, the devices spread over every bank; the clock runs from SendMessage to the g2 event of the device\'s permanent-fault binary (from its bank\'s address) in the master. ' +
        'The split is at the commit of the stored check-in (a LISTEN on dnp3_change).',
      '',
      `| measure, ms | p50 | p95 | max | min |`,
      '|---|---|---|---|---|',
      `| SendMessage to event in the master | ${latency.totalMs.p50} | ${latency.totalMs.p95} | ${latency.totalMs.max} | ${latency.totalMs.min} |`,
      `| SendMessage to stored (bridge, Kafka, stages, commit) | ${latency.toStoredMs.p50} | ${latency.toStoredMs.p95} | ${latency.toStoredMs.max} | ${latency.toStoredMs.min} |`,
      `| stored to event in the master (feed, outstation, TLS) | ${latency.storedToMasterMs.p50} | ${latency.storedToMasterMs.p95} | ${latency.storedToMasterMs.max} | ${latency.storedToMasterMs.min} |`,
      '',
      `${latency.received} of ${latency.faults} events received${latency.lost ? `, **${latency.lost} not within ${FAULT_TIMEOUT_MS / 1000} s**` : ''}; pipeline warm-up ${latency.warmUpSeconds} s (not counted).`,
      '',
      'CPU seconds per wall second while the faults went through:',
      '',
      ...cpuTable(latency.cpuPerSecond),
      '',
      bottleneckLine(latency.bottleneck, 'one fault at a time leaves every process mostly idle, so the latency is the sum of waits (SQS receive, Kafka fetches between five stages, the feed\'s query, the 100 ms session tick).'),
      '',
      `The larger share of the median: **${latency.toStoredMs.p50 >= latency.storedToMasterMs.p50 ? 'SQS to Postgres (bridge and the five stages over Kafka)' : 'Postgres to the master (feed, outstation tick, unsolicited response)'}**.`,
      '',
    );
  }
  return lines.join('\n');
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
