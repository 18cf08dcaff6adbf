// The indicator-audit suites' rig: the simulator's feeders (simulator/feeder-faults.ts) imported with the import's
// code into a test database, their check-ins through the real stages into Postgres, the incident worker stepped on
// the scenario's clock, the findings read through the API.
import * as assert from 'uvu/assert';
import type { Hono } from 'hono';
import { createApp } from '../../../api/app.js';
import { startIncidentWorker, type IncidentWorker } from '../../../incidents/worker.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { localAvroCodec } from '../../../stages/runtime/codec.js';
import { memoryTransport } from '../../../stages/runtime/transport/memory.js';
import type { Transport } from '../../../stages/runtime/transport/transport.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { startTestPipeline, type TestPipeline } from '../../../support/pipeline.js';
import { importDemoData } from '../../../support/reference-data.js';
import { feederScenario, incidentMessages, type FeederIncident, type FeederScenario, type FeederScenarioOptions } from '../../../simulator/feeder-faults.js';
import { JWT_SECRET, login } from '../api/seeded-api.js';

export type Finding = {
  id: number; IMEINumber: string; kind: string; title: string; dismissed: unknown; raisedAt: string;
  evidence: { incidentId: number; verdict: string; otherPhase: boolean }[]; agreement: Record<string, number>;
};
export type AuditUser = 'northAdmin' | 'northEast' | 'southAdmin';

export interface FeederRig {
  db: TestDatabase;
  app: Hono;
  scenario: FeederScenario;
  /** The worker's clock (ms): the scenario's time, moved by play(). */
  clock(): number;
  /** Incidents played so far, and per watched indicator how many of them ran on its path. */
  closed: FeederIncident[];
  pathIncidents: Map<string, number>;
  findings(user: AuditUser, query?: string): Promise<Finding[]>;
  /** One incident of the scenario: its trips, a step; every device's next check-in, a step (restored); a step a window later (closed). */
  play(i: FeederIncident): Promise<void>;
  worker: IncidentWorker;
  stop(): Promise<void>;
}

/** The scenario's feeders in organisation north (group north-east), a pipeline and a worker on its clock, the API. */
export async function feederRig(name: string, options: FeederScenarioOptions): Promise<FeederRig> {
  const scenario = feederScenario({ noise: false, startTime: Date.now() - 4 * 86_400_000, ...options });
  let clock = 0;
  const eventIds = new Map<string, number>();
  const pathIncidents = new Map<string, number>([scenario.dead, scenario.mislabelled].flatMap((x) => (x ? [[x, 0] as [string, number]] : [])));
  const closed: FeederIncident[] = [];
  const db = await createTestDatabase(name);
  await importDemoData(db.pool);
  await importReferenceData(db.pool, {
    powerLines: scenario.powerLines.map((l) => ({ Id: l.id, OrganizationID: 'north', name: l.name })),
    devices: scenario.devices.map((d, n) => ({
      IMEINumber: d.imei, OrganizationID: 'north', PowerLineID: d.powerLineId, Real_Name: d.name, Lat: 41.5 + n * 0.001, Long: -87.9,
      groups: ['north-east'], dnp3QueueAddress: 'dnp3.north', UpstreamIMEI: d.upstream, Phase: d.phase, Section: d.section,
    })),
  });
  const transport: Transport = memoryTransport({ codec: localAvroCodec(), partitions: 4 });
  const pipe: TestPipeline = await startTestPipeline(transport, db.pool);
  const worker = startIncidentWorker({ pool: db.pool, clock: () => new Date(clock) }, { loop: false });
  const app = createApp({ readiness: {}, pool: db.pool, jwtSecret: JWT_SECRET, portalDir: null, accountCacheMs: 0 });
  return {
    db, app, scenario, closed, pathIncidents, worker,
    clock: () => clock,
    async findings(user, query = '') {
      const res = await app.request(`/api/indicator-audit/findings${query}`, { headers: { authorization: `Bearer ${await login(app, user)}` } });
      assert.is(res.status, 200, await res.clone().text());
      return ((await res.json()) as { data: Finding[] }).data;
    },
    async play(i) {
      const feed = async (messages: object[]) => {
        await pipe.feed(messages.map((m, n) => ({ name: `i${i.seq}-${n}.json`, body: JSON.stringify(m) })));
        await pipe.drain();
      };
      const m = incidentMessages(i, eventIds);
      await feed(m.trips);
      clock = i.at + 2 * 60_000;
      await worker.runOnce();
      await feed(m.after);
      clock = i.at + 31 * 60_000;
      await worker.runOnce();
      clock = i.at + 34 * 60_000;
      await worker.runOnce();
      closed.push(i);
      for (const t of pathIncidents.keys()) if (i.path.includes(t) || i.plannedPath.includes(t)) pathIncidents.set(t, pathIncidents.get(t)! + 1);
    },
    async stop() {
      await pipe.stop();
      await transport.close();
      await db.drop();
    },
  };
}
