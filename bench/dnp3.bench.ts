// The SCADA bench: the DNP3 outstation under a real opendnp3 master (yadnp3, bench/dnp3_master.py) and the
// IEC 104 station under a controlling station (bench/iec104-master.ts, in this process), both over mutual TLS,
// both in this process and fed from the same Postgres, in one run. One organisation of N devices (default
// 10,000: 80,000 binary and 80,000 device analog points) with an integration of each kind, each device with a
// stored check-in (persistBatch), so every point has a value. Past 8,000 devices the organisation is served as
// banks (points/banks.ts): 10,000 devices are bank 0 (slots 0..7999) at DNP3 link address 10 and 104 common
// address 1, and bank 1 (8000..9999) at 11 and 2; the DNP3 master has one association per bank on its one TLS
// channel, the 104 master one connection that interrogates CA 0xFFFF.
//
//  1. Poll response time, each round: the DNP3 integrity poll (READ class 1/2/3/0, one task) of each bank
//     alone and of all banks at once (one READ per association, started together; opendnp3 runs one channel's
//     tasks one after the other), timed in the master from the request to its first response fragment and to
//     the task's end (every fragment confirmed); then the 104 station interrogation (C_IC_NA_1, QOI 20, to CA
//     0xFFFF), timed in the 104 master from the activation to the last bank's ACT_TERM.
//  2. SQS to master: `faultline start --only bridge,<all stages>` as a child process (Kafka transport, its
//     own SQS queue). The DNP3 master has unsolicited responses enabled (the opendnp3 start-up sequence
//     enables classes 1/2/3; no event polls); the 104 master started data transfer (spontaneous, COT 3). One
//     permanent-fault check-in (Ongoing_fault 4 with a PFault event) at a time is sent to SQS; for each, two
//     clocks run from SendMessage: to the DNP3 master receiving the g2 event of that device's "permanent
//     fault" binary (8*local slot+1, from its bank's address), and to the 104 master receiving M_SP_TB_1 at
//     IOA 1+8*local slot+1 of its bank's common address. A LISTEN on dnp3_change splits each latency at the
//     commit of the stored check-in: SQS -> Postgres (bridge and stages) and Postgres -> master (feed,
//     station, TLS). The figures' arithmetic is support/bench-latency.ts.
//
//   npm run bench:dnp3 -- [--devices 10000] [--polls 7] [--faults 50] [--part both|poll|latency] [--transport kafka|in-process]
//
// --transport in-process runs the child on the embedded default's in-process transport (no KAFKA_BROKERS) on the
// bench's Postgres (the same PostgreSQL 18 build the embedded default starts), and writes dnp3-<devices>-in-process.
//
// Needs infra/ (started here with infra/up.sh) and python3 for the yadnp3 venv (test/interop/dnp3/setup-yadnp3.sh).
// Writes bench/results/dnp3-<devices>.json and .md (dnp3-10000 by default; a small trial never overwrites
// the 10,000-device figures). Progress on stderr.
import { execSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
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
import { stats } from '../support/stats.js';
import { latencyTable, protocolLatency, splitAtCommit, type FaultLatency, type ProtocolLatency } from '../support/bench-latency.js';
import { startDnp3Service } from '../dnp3/service.js';
import { bankAddress, bankOf, binaryIndex, localSlot, pointMapBanks } from '../dnp3/data/point-map.js';
import type { PointMapBank } from '../dnp3/data/point-map.js';
import { startIec104Service } from '../iec104/service.js';
import { bankCommonAddress, singleIoa } from '../iec104/data/point-map.js';
import { Iec104BenchMaster, type Interrogation } from './iec104-master.js';
import { computed } from '../support/checkins.js';
import { resetPipelineTopics } from '../support/kafka.js';
import { pythonWithYadnp3 } from '../support/dnp3-master.js';
import { machineInfo } from '../support/machine.js';
import { cpuDelta, cpuSnapshot, treeCpuSeconds } from './process-cpu.js';
import { createTestDatabase } from '../support/database.js';

const { values } = parseArgs({
  options: {
    devices: { type: 'string', default: '10000' }, polls: { type: 'string', default: '7' }, faults: { type: 'string', default: '50' },
    part: { type: 'string', default: 'both' }, partitions: { type: 'string', default: '6' }, transport: { type: 'string', default: 'kafka' },
  },
});
const DEVICES = Number(values.devices);
const POLLS = Number(values.polls);
const FAULTS = Number(values.faults);
const PARTITIONS = Number(values.partitions);
const PART = values.part as 'both' | 'poll' | 'latency';
if (!['both', 'poll', 'latency'].includes(PART)) throw new Error(`--part: both, poll or latency, got ${PART}`);
const IN_PROCESS = values.transport === 'in-process';
if (!IN_PROCESS && values.transport !== 'kafka') throw new Error(`--transport: kafka or in-process, got ${values.transport}`);
/** What carries the records between the child's stages, as the report names it. */
const BETWEEN_STAGES = IN_PROCESS ? 'the in-process transport' : 'Kafka';
/** Plain check-ins that bring the child's consumer groups up before the clock runs; their devices never fault. */
const WARM = PARTITIONS * 4;
if (PART !== 'poll' && DEVICES < FAULTS + WARM) throw new Error(`--devices must be at least faults + ${WARM}`);
const FAULT_TIMEOUT_MS = 60_000;
const ORG = 'bench';
const OUTSTATION_ADDRESS = 10;
/** The 104 station's common address of bank 0 (bank b: 1 + b). */
const COMMON_ADDRESS = 1;
/** The banks the outstation serves for DEVICES devices (slots 0..DEVICES-1), with their expected point counts. */
const BANKS: PointMapBank[] = pointMapBanks(DEVICES - 1, { outstationAddress: OUTSTATION_ADDRESS });
const ANALOG_POINTS = BANKS.reduce((n, b) => n + b.analogPoints, 0);
const root = new URL('..', import.meta.url).pathname;
const env = { ...infraEnv(), ...process.env } as Record<string, string>;
const say = (s: string) => process.stderr.write(`${s}\n`);

// ---------------------------------------------------------------------------------------------------------
// Data: a fresh database, one organisation, N devices, one DNP3 and one IEC 104 integration, one stored check-in each.

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
    integrations: [
      { id: 'bench-scada', OrganizationID: ORG, kind: 'dnp3', channel: 'A', masterIdentity: 'scada.north.example', outstationAddress: OUTSTATION_ADDRESS, masterAddress: 1 },
      { id: 'bench-iec104', OrganizationID: ORG, kind: 'iec104', channel: 'B', masterIdentity: 'scada.north.example', commonAddress: COMMON_ADDRESS },
    ],
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
const load = () => loadavg().map(r1);

type Cpu = Record<string, number>;
/** The bench process holds both stations and the 104 master; the DNP3 master is its own process. */
const BENCH_PROCESS = 'bench process (DNP3 outstation, 104 station, 104 master)';
/** CPU seconds of infra servers, this process and the named child processes. */
function cpuNow(children: Record<string, number | undefined>): Cpu {
  const snap = cpuSnapshot();
  const out: Cpu = { [BENCH_PROCESS]: snap.faultline! };
  delete snap.faultline;
  for (const [name, pid] of Object.entries(children)) if (pid) out[name] = treeCpuSeconds(pid);
  return { ...out, ...snap };
}
function perSecond(before: Cpu, after: Cpu, seconds: number): Cpu {
  return Object.fromEntries(Object.entries(cpuDelta(before, after)).map(([k, v]) => [k, Math.round((v / seconds) * 100) / 100]));
}
/** CPU per wall second over the stretches it measured (one protocol's requests, interleaved with the other's). */
class CpuMeter {
  private readonly used: Cpu = {};
  private seconds = 0;
  constructor(private readonly pids: Record<string, number | undefined>) {}
  async measure<T>(work: () => Promise<T>): Promise<T> {
    const before = cpuNow(this.pids);
    const started = performance.now();
    const out = await work();
    const after = cpuNow(this.pids);
    this.seconds += (performance.now() - started) / 1000;
    for (const k of Object.keys(after)) this.used[k] = (this.used[k] ?? 0) + after[k]! - (before[k] ?? 0);
    return out;
  }
  perSecond(): Cpu {
    return Object.fromEntries(Object.entries(this.used).map(([k, v]) => [k, Math.round((v / this.seconds) * 100) / 100]));
  }
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
interface GiPart {
  /** Station interrogation to CA 0xFFFF, activation to the last ACT_TERM. */
  ms: ReturnType<typeof stats>;
  objects: number;
  rounds: Interrogation[];
  cpuPerSecond: Cpu;
  bottleneck: ReturnType<typeof bottleneck>;
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
  /** The IEC 104 general interrogation of the same devices, one per round after the DNP3 polls. */
  gi: GiPart;
}

function checkPoll(a: PollAnswer | undefined, bank: PointMapBank, what: string): PollAnswer {
  if (!a || a.completeMs === null || a.firstMs === null || !a.result.endsWith('SUCCESS')) throw new Error(`${what} failed: ${JSON.stringify(a)}`);
  if (a.binary !== bank.binaryPoints || a.analog !== bank.analogPoints) {
    throw new Error(`${what}: ${a.binary} binary and ${a.analog} analog values, expected ${bank.binaryPoints} and ${bank.analogPoints}`);
  }
  return a;
}

/** One round of DNP3 polls: each bank alone, then all at once. */
async function dnp3Round(master: BenchMaster, i: number): Promise<PollPart['rounds'][number]> {
  const banks: PollAnswer[] = [];
  for (const bank of BANKS) {
    const a = checkPoll(await master.command<PollAnswer>(`integrity ${bank.outstationAddress}`), bank, `round ${i}, bank ${bank.bank}`);
    say(`  round ${i}/${POLLS}, DNP3 bank ${bank.bank} (address ${bank.outstationAddress}): first fragment ${r1(a.firstMs!)} ms, complete ${r1(a.completeMs!)} ms, ${a.fragments} fragments`);
    banks.push(a);
  }
  const all = await master.command<AllBanksAnswer>('integrity all');
  if (all.completeMs === null) throw new Error(`round ${i}, all banks failed: ${JSON.stringify(all)}`);
  for (const bank of BANKS) checkPoll(all.banks[String(bank.outstationAddress)], bank, `round ${i}, all banks, bank ${bank.bank}`);
  say(`  round ${i}/${POLLS}, DNP3 all banks at once: complete ${r1(all.completeMs)} ms`);
  return { banks, all };
}

async function pollPart(master: BenchMaster, master104: Iec104BenchMaster, pids: Record<string, number | undefined>): Promise<PollPart> {
  say(`poll: ${POLLS} rounds: DNP3 integrity polls (class 1/2/3/0) of each of ${BANKS.length} bank(s) alone, then all at once; then the IEC 104 station interrogation`);
  const rounds: PollPart['rounds'] = [];
  const gis: Interrogation[] = [];
  const dnp3Cpu = new CpuMeter(pids);
  const giCpu = new CpuMeter(pids);
  const expectedObjects = 8 * DEVICES + ANALOG_POINTS;
  for (let i = 1; i <= POLLS; i++) {
    rounds.push(await dnp3Cpu.measure(() => dnp3Round(master, i)));
    const gi = await giCpu.measure(() => master104.interrogate(BANKS.length));
    if (gi.objects !== expectedObjects) throw new Error(`round ${i}, IEC 104 GI: ${gi.objects} information objects, expected ${expectedObjects}`);
    say(`  round ${i}/${POLLS}, IEC 104 GI (CA 0xFFFF): complete ${r1(gi.ms)} ms, ${gi.objects} information objects`);
    gis.push(gi);
  }
  const cpuPerSecond = dnp3Cpu.perSecond();
  const giCpuPerSecond = giCpu.perSecond();
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
    gi: { ms: stats(gis.map((g) => g.ms)), objects: gis[0]!.objects, rounds: gis, cpuPerSecond: giCpuPerSecond, bottleneck: bottleneck(giCpuPerSecond) },
  };
}

type Measured = ProtocolLatency & { lost: number };
interface LatencyPart {
  faults: number;
  unsolicited: boolean;
  dnp3: Measured;
  iec104: Measured;
  warmUpSeconds: number;
  cpuPerSecond: Cpu;
  bottleneck: ReturnType<typeof bottleneck>;
}

/** Both masters' receipt of one fault, split at the stored check-in's commit; undefined where a master saw nothing in time. */
async function oneFault(
  send: () => Promise<unknown>, master: BenchMaster, master104: Iec104BenchMaster, slot: number, commits: bigint[],
): Promise<{ dnp3?: FaultLatency; iec104?: FaultLatency; unsolicited: boolean }> {
  const bank = bankOf(slot);
  commits.length = 0;
  const t0 = process.hrtime.bigint();
  await send();
  const [e, e104] = await Promise.all([
    master.binaryTrue(bankAddress(OUTSTATION_ADDRESS, bank), binaryIndex(localSlot(slot), 1), FAULT_TIMEOUT_MS),
    master104.singlePointOn(bankCommonAddress(COMMON_ADDRESS, bank), singleIoa(localSlot(slot), 1), FAULT_TIMEOUT_MS),
  ]);
  return {
    ...(e ? { dnp3: splitAtCommit(t0, BigInt(e.t), commits) } : {}),
    ...(e104 ? { iec104: splitAtCommit(t0, e104.t, commits) } : {}),
    unsolicited: e?.unsolicited ?? true,
  };
}

const showFault = (f: FaultLatency | undefined) => (f ? `${r1(f.totalMs)} ms${f.toStoredMs !== undefined ? ` (stored after ${r1(f.toStoredMs)} ms)` : ''}` : `nothing within ${FAULT_TIMEOUT_MS / 1000} s`);

/** Sends one plain check-in per device of the last WARM slots and waits until all are stored (every stage joined). */
async function warmUp(db: { pool: pg.Pool }, send: (body: string) => Promise<unknown>, imeis: string[], child: ChildProcess): Promise<number> {
  const stored = async () => Number((await db.pool.query('select count(*) from device_records')).rows[0].count);
  const warmStart = performance.now();
  const before = await stored();
  for (const [i, imei] of imeis.slice(-WARM).entries()) await send(checkInBody(imei, i, Math.floor(Date.now() / 1000) * 1000 - 300_000, false));
  let lastSay = warmStart;
  while ((await stored()) < before + WARM) {
    if (child.exitCode !== null) throw new Error(`pipeline child exited (${child.exitCode})`);
    if (performance.now() - warmStart > 180_000) throw new Error('warm-up: check-ins not stored after 180 s');
    if (performance.now() - lastSay > 5000) { say(`  warm-up: ${(await stored()) - before}/${WARM} stored`); lastSay = performance.now(); }
    await new Promise((r) => setTimeout(r, 200));
  }
  return (performance.now() - warmStart) / 1000;
}

async function latencyPart(
  db: { pool: pg.Pool; url: string }, master: BenchMaster, master104: Iec104BenchMaster, imeis: string[], slotOf: Map<string, number>, cpuPids: Record<string, number | undefined>,
): Promise<LatencyPart> {
  say(`latency: pipeline child process, ${FAULTS} permanent faults through SQS, one at a time, each timed to the DNP3 and the IEC 104 master`);
  if (!IN_PROCESS) {
    await resetPipelineTopics(['dnp3.bench']);
    const transport = kafkaTransport({ brokers: env.KAFKA_BROKERS!.split(','), codec: await registryCodec(createRegistry(env.SCHEMA_REGISTRY_URL!)), partitions: PARTITIONS, sessionTimeoutMs: 10_000 });
    await transport.ensureTopics(Object.values(TOPICS));
    await transport.close();
  }

  const sqs = createSqsClient({ queueUrl: env.SQS_QUEUE_URL!, endpoint: env.SQS_ENDPOINT! });
  const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `dnp3-bench-${Date.now()}` }))).QueueUrl!;
  const { KAFKA_BROKERS: _brokers, SCHEMA_REGISTRY_URL: _registry, ...withoutKafka } = process.env;
  const child = spawn(process.execPath, ['bin/faultline.js', 'start', '--only', 'bridge,enrich,dedup,fault-compute,persist,notify,rejected'], {
    cwd: root, stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...withoutKafka, DATABASE_URL: db.url, SQS_QUEUE_URL: queueUrl, SQS_ENDPOINT: env.SQS_ENDPOINT, LOG_LEVEL: 'error',
      ...(IN_PROCESS ? {} : { KAFKA_BROKERS: env.KAFKA_BROKERS, SCHEMA_REGISTRY_URL: env.SCHEMA_REGISTRY_URL, KAFKA_PARTITIONS: String(PARTITIONS), KAFKA_SESSION_TIMEOUT_MS: '10000' }),
    },
  });
  const listener = new pg.Client({ connectionString: db.url });
  try {
    const send = (body: string) => sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
    const warmUpSeconds = await warmUp(db, send, imeis, child);
    say(`  warm-up done in ${r1(warmUpSeconds)} s`);
    await new Promise((r) => setTimeout(r, 2000)); // the warm-up's own events reach the masters and are confirmed
    // Statistics of what the set-up just loaded, as autovacuum takes them within a minute of a bulk load on a
    // utility's database: the faults are timed in steady state, not in the seconds after a bulk load, when the
    // point feed's round is planned without statistics (80-110 ms instead of a few; docs/benchmarks.md#dnp3-outstation).
    await db.pool.query('analyze');

    // Commits of stored check-ins, as the stations' feeds hear them.
    const commits: bigint[] = [];
    await listener.connect();
    listener.on('notification', () => commits.push(process.hrtime.bigint()));
    await listener.query('listen dnp3_change');
    await master.command('watch');
    master104.clearEarly();

    const got = { dnp3: [] as FaultLatency[], iec104: [] as FaultLatency[] };
    let unsolicited = true;
    const pids = { ...cpuPids, 'pipeline (child process)': child.pid };
    const cpuBefore = cpuNow(pids);
    const started = performance.now();
    const candidates = imeis.slice(0, imeis.length - WARM);
    const stride = Math.max(1, Math.floor(candidates.length / FAULTS));
    for (let f = 0; f < FAULTS; f++) {
      const imei = candidates[f * stride]!;
      const slot = slotOf.get(imei)!;
      const body = checkInBody(imei, f * stride, Math.floor(Date.now() / 1000) * 1000, true);
      const r = await oneFault(() => send(body), master, master104, slot, commits);
      if (r.dnp3) got.dnp3.push(r.dnp3);
      if (r.iec104) got.iec104.push(r.iec104);
      unsolicited &&= r.unsolicited;
      if ((f + 1) % 10 === 0 || f === 0 || !r.dnp3 || !r.iec104) say(`  fault ${f + 1}/${FAULTS}: slot ${slot}: DNP3 ${showFault(r.dnp3)}; IEC 104 ${showFault(r.iec104)}`);
      // A pause that is not a multiple of any poll or tick period, so the faults do not lock onto one phase.
      await new Promise((res) => setTimeout(res, 150 + Math.floor(Math.random() * 250)));
    }
    const cpuPerSecond = perSecond(cpuBefore, cpuNow(pids), (performance.now() - started) / 1000);
    return {
      faults: FAULTS, unsolicited,
      dnp3: { ...protocolLatency(got.dnp3), lost: FAULTS - got.dnp3.length },
      iec104: { ...protocolLatency(got.iec104), lost: FAULTS - got.iec104.length },
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

interface Setup {
  preloadSeconds: number;
  outstationStartSeconds: number;
  iec104StartSeconds: number;
  masterStartupSeconds: number;
  iec104MasterStartMs: number;
  unsolicitedEnabled: string | null;
}

/** Both stations on the one database, and both masters connected and started. */
async function startStations(db: { pool: pg.Pool }, setup: Partial<Setup>): Promise<{
  service: Awaited<ReturnType<typeof startDnp3Service>>; service104: Awaited<ReturnType<typeof startIec104Service>>; master: BenchMaster; master104: Iec104BenchMaster;
}> {
  const pem = (n: string) => join(root, '.infra/certs', `${n}.pem`);
  const tlsFiles = { key: pem('outstation.test-key'), cert: pem('outstation.test'), ca: pem('ca') };
  const offlineAfterHours = loadSettings({}).offlineAfterHours;
  const onError = (err: unknown) => say(`  station error: ${(err as Error).message}`);
  say('  starting the DNP3 outstation (mutual TLS): slots and the first load of every device');
  let t = performance.now();
  const service = await startDnp3Service({ pool: db.pool, port: 0, host: '127.0.0.1', offlineAfterHours, tlsFiles, onError });
  setup.outstationStartSeconds = r1((performance.now() - t) / 1000);
  say('  starting the IEC 104 station (mutual TLS): the first load of every device');
  t = performance.now();
  const service104 = await startIec104Service({ pool: db.pool, port: 0, host: '127.0.0.1', offlineAfterHours, tlsFiles, onError });
  setup.iec104StartSeconds = r1((performance.now() - t) / 1000);

  say('  DNP3 master start-up: connect, integrity poll, time sync, enable unsolicited');
  t = performance.now();
  const master = new BenchMaster(service.server.port, { ca: pem('ca'), cert: pem('scada.north.example'), key: pem('scada.north.example-key') }, BANKS.map((b) => b.outstationAddress));
  const startup = await master.startup();
  if (startup.error || Object.values(startup.banks ?? {}).length !== BANKS.length || Object.values(startup.banks).some((b) => !b.integrityResult?.endsWith('SUCCESS'))) {
    throw new Error(`master start-up failed: ${JSON.stringify(startup)}`);
  }
  setup.masterStartupSeconds = r1((performance.now() - t) / 1000);
  setup.unsolicitedEnabled = startup.unsolicited;
  say(`  DNP3 master ready in ${setup.masterStartupSeconds} s (unsolicited: ${startup.unsolicited})`);
  t = performance.now();
  const master104 = await Iec104BenchMaster.connect({
    port: service104.server.port, ca: readFileSync(pem('ca')), cert: readFileSync(pem('scada.north.example')), key: readFileSync(pem('scada.north.example-key')), servername: 'outstation.test',
  });
  setup.iec104MasterStartMs = r1(performance.now() - t);
  say(`  IEC 104 master connected and started (STARTDT) in ${setup.iec104MasterStartMs} ms`);
  return { service, service104, master, master104 };
}

async function main(): Promise<void> {
  say(`SCADA bench (DNP3 and IEC 104): ${DEVICES} devices (${8 * DEVICES} binary, ${ANALOG_POINTS} analog points in ${BANKS.length} bank(s)), ${PART === 'latency' ? '' : `${POLLS} polls, `}${PART === 'poll' ? '' : `${FAULTS} faults`}`);
  const loadAverage: Record<string, number[]> = { start: load() };
  execSync('bash infra/up.sh', { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  execSync('bash infra/certs.sh', { cwd: root, stdio: 'ignore' });
  pythonWithYadnp3(); // create the venv now, not inside a timed section

  // Two stations' feeds and persistence share the pool with the bench's own queries.
  const db = await createTestDatabase('bench_dnp3', { poolMax: 12 });
  let stations: Awaited<ReturnType<typeof startStations>> | undefined;
  try {
    const imeis = Array.from({ length: DEVICES }, (_, i) => generateImei('35899', i));
    say(`  importing ${DEVICES} devices and storing one check-in each (persistBatch)`);
    const setup: Partial<Setup> = { preloadSeconds: r1(await loadFleet(db.pool, imeis, Math.floor(Date.now() / 1000) * 1000 - 600_000)) };
    stations = await startStations(db, setup);
    const slotOf = new Map((await db.pool.query<{ imei: string; slot: number }>(`select "IMEINumber" as imei, slot from dnp3_slots where "OrganizationID" = $1`, [ORG])).rows.map((r) => [r.imei, r.slot]));
    if (slotOf.size !== DEVICES) throw new Error(`${slotOf.size} slots for ${DEVICES} devices`);
    const pids = { 'DNP3 master (yadnp3)': stations.master.child.pid };

    const poll = PART === 'latency' ? undefined : await pollPart(stations.master, stations.master104, pids);
    if (poll) loadAverage['after the polls'] = load();
    const latency = PART === 'poll' ? undefined : await latencyPart(db, stations.master, stations.master104, imeis, slotOf, pids);
    if (latency) loadAverage['after the faults'] = load();
    if (stations.master104.closedReason) throw new Error(`IEC 104 master: ${stations.master104.closedReason}`);

    const result = {
      scenario: 'dnp3', machine: machineInfo(), loadAverage, devices: DEVICES, binaryPoints: 8 * DEVICES, analogPoints: ANALOG_POINTS,
      banks: BANKS, setup: setup as Setup, ...(poll ? { poll } : {}), ...(latency ? { latency } : {}),
    };
    const name = `dnp3-${DEVICES}${IN_PROCESS ? '-in-process' : ''}`;
    writeFileSync(new URL(`./results/${name}.json`, import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
    const md = report(result.machine, loadAverage, setup as Setup, poll, latency);
    writeFileSync(new URL(`./results/${name}.md`, import.meta.url), md);
    process.stdout.write(`${md}\n`);
  } finally {
    stations?.master104.close();
    await stations?.master.stop();
    await stations?.service104.close();
    await stations?.service.close();
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

const n = (x: number) => x.toLocaleString('en-US');
const spread = (s: ReturnType<typeof stats>) => `${r1(s.median)} (${r1(s.min)}–${r1(s.max)})`;

function pollSection(poll: PollPart): string[] {
  const perFragment = Math.max(...poll.banks.map((b) => b.msPerFragment.median));
  return [
    `## DNP3 integrity poll and IEC 104 general interrogation, ${poll.rounds.length} rounds`,
    '',
    `| all banks, ${n(DEVICES)} devices | values | complete, ms (median, min–max) |`,
    '|---|---|---|',
    `| DNP3 integrity poll (READ class 1/2/3/0, one READ per bank at once) | ${n(8 * DEVICES + ANALOG_POINTS)} | **${spread(poll.allMs)}** |`,
    `| IEC 104 station interrogation (C_IC_NA_1, QOI 20, CA 0xFFFF) | ${n(poll.gi.objects)} | **${spread(poll.gi.ms)}** |`,
    '',
    'Each round polls every DNP3 bank alone, then all banks at once, then interrogates the 104 station. DNP3 is timed in the master (a separate process) from the request to its first response fragment and to the end of the task (every fragment received and confirmed: one round trip per fragment); ' +
      'opendnp3 runs the tasks of one channel one after the other. IEC 104 is timed in the bench\'s 104 master (in the bench process, so its parsing shares that process\'s CPU with both stations) from the activation to the last bank\'s ACT_TERM; the station sends up to k = 12 I frames ahead, the master acknowledges every w = 8, so there is no round trip per ASDU.',
    '',
    '| DNP3 poll | points | fragments | first fragment, ms (median, min–max) | complete, ms (median, min–max) | per fragment, ms |',
    '|---|---|---|---|---|---|',
    ...poll.banks.map((b) => `| bank ${b.bank}, address ${b.address} | ${n(b.binary)} + ${n(b.analog)} | ${b.fragments} | ${spread(b.firstMs)} | ${spread(b.completeMs)} | ${r1(b.msPerFragment.median)} |`),
    `| **all banks (total)** | ${n(8 * DEVICES)} + ${n(ANALOG_POINTS)} | ${poll.allFragments} | | **${spread(poll.allMs)}** | ${r1(poll.allMs.median / poll.allFragments)} |`,
    '',
    'CPU seconds per wall second during the DNP3 polls (1.0 = one core busy):',
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
    'CPU seconds per wall second during the IEC 104 interrogations:',
    '',
    ...cpuTable(poll.gi.cpuPerSecond),
    '',
    bottleneckLine(poll.gi.bottleneck, 'but the interrogation is one thread\'s work (the station encodes and writes each of its ASDUs as its own TLS record, and the 104 master in the same process reads them), ' +
      'so on a machine loaded beyond its cores (the load average above) that thread gets less than a core and the time grows with the load; a profile of the GI alone: bench/iec104-gi.bench.ts with --cpu-prof.'),
    '',
  ];
}

function latencySection(latency: LatencyPart): string[] {
  const received = (name: string, p: Measured) => `${name}: ${p.received} of ${latency.faults} events received${p.lost ? `, **${p.lost} not within ${FAULT_TIMEOUT_MS / 1000} s**` : ''}, ${p.split} split at the commit`;
  const larger = (p: Measured) => (p.toStoredMs.p50 >= p.storedToMasterMs.p50 ? `SQS to Postgres (bridge and the five stages over ${BETWEEN_STAGES})` : 'Postgres to the master (feed, station, TLS)');
  return [
    `## SQS to master, ${latency.faults} permanent faults, DNP3 and IEC 104 side by side`,
    '',
    `\`faultline start --only bridge,enrich,dedup,fault-compute,persist,notify,rejected\` (${IN_PROCESS ? 'the embedded default\'s in-process transport, on the bench\'s Postgres' : 'Kafka transport'}, its own SQS queue) as a child process. ` +
      `The DNP3 master receives ${latency.unsolicited ? 'unsolicited responses (classes 1/2/3 enabled at start-up, no event polls)' : 'events (not all of them unsolicited)'}; the IEC 104 master started data transfer and receives spontaneous ASDUs (COT 3). ` +
      'One fault check-in (Ongoing_fault 4, a PFault event) at a time, the devices spread over every bank; two clocks run from SendMessage: to the g2 event of the device\'s permanent-fault binary (from its bank\'s address) in the DNP3 master, and to M_SP_TB_1 at the same point\'s IOA (its bank\'s common address) in the 104 master. ' +
      'Both are split at the commit of the stored check-in (a LISTEN on dnp3_change), so the first half is the same pipeline for both; the two stations have a feed each on the same database, in the bench process.',
    '',
    ...latencyTable(latency.dnp3, latency.iec104, BETWEEN_STAGES),
    '',
    `${received('DNP3', latency.dnp3)}; ${received('IEC 104', latency.iec104)}; pipeline warm-up ${latency.warmUpSeconds} s (not counted).`,
    '',
    'CPU seconds per wall second while the faults went through:',
    '',
    ...cpuTable(latency.cpuPerSecond),
    '',
    bottleneckLine(latency.bottleneck, `one fault at a time leaves every process mostly idle, so the latency is the sum of waits (SQS receive, the hand-offs over ${BETWEEN_STAGES} between five stages, the feed's query, the DNP3 session tick).`),
    '',
    `The larger share of the median: DNP3 **${larger(latency.dnp3)}**; IEC 104 **${larger(latency.iec104)}**.`,
    '',
  ];
}

function report(m: ReturnType<typeof machineInfo>, loadAverage: Record<string, number[]>, setup: Setup, poll: PollPart | undefined, latency: LatencyPart | undefined): string {
  return [
    '# SCADA stations side by side: DNP3 integrity poll and IEC 104 interrogation time, SQS-to-master latency',
    '',
    `${m.date} · commit ${m.commit} · Node ${m.node} · ${m.cores} cores (${m.cpu}) · ${m.memoryGiB} GiB · ` +
      `load average (1 / 5 / 15 min) ${Object.entries(loadAverage).map(([k, v]) => `${k} ${v.join(' / ')}`).join(', ')}`,
    '',
    `${n(DEVICES)} devices of one organisation mapped: ${n(8 * DEVICES)} binary and ${n(ANALOG_POINTS)} analog points (a heartbeat per bank), every device with a stored check-in, ` +
      `in ${BANKS.length} bank(s) of up to 8,000 devices: ${BANKS.map((b) => `bank ${b.bank} at DNP3 link address ${b.outstationAddress} and IEC 104 common address ${bankCommonAddress(COMMON_ADDRESS, b.bank)} (slots ${n(b.firstSlot)}..${n(b.lastSlot)}, ${n(b.binaryPoints)} + ${n(b.analogPoints)} points)`).join(', ')}. ` +
      'DNP3 master: opendnp3 (PyPI yadnp3 3.2.1.4, bench/dnp3_master.py with the interop test\'s test/interop/dnp3/yadnp3_common.py), one association per bank on one mutual-TLS channel. ' +
      'IEC 104 master: bench/iec104-master.ts in the bench process, one mutual-TLS connection. Both with the development certificates (infra/certs.sh); `startDnp3Service` and `startIec104Service` in the bench process.',
    '',
    `Set-up: storing the check-ins ${setup.preloadSeconds} s; DNP3 outstation start (slots, first load) ${setup.outstationStartSeconds} s; IEC 104 station start (first load) ${setup.iec104StartSeconds} s; ` +
      `DNP3 master start-up (connect, integrity poll, time sync, enable unsolicited) ${setup.masterStartupSeconds} s; IEC 104 master connect (TLS) and STARTDT ${setup.iec104MasterStartMs} ms.`,
    '',
    ...(poll ? pollSection(poll) : []),
    ...(latency ? latencySection(latency) : []),
  ].join('\n');
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
