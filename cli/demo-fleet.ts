// The fleet scenarios in the demo (DEMO_FLEET=1 on the embedded default; docs/decisions.md#fleet-scenarios): with
// the demo data, on an empty database, their devices, feeders and group are imported into the demo organisation
// and their histories, ending now, are dropped into the spool inbox, so the fleet view has a battery running out,
// a falling signal, a carrier outage, a de-energised lateral, devices never commissioned and a drifting group to
// show. The live simulator (simulate.ts) leaves their devices alone, so their stories stay as told.
import { importReferenceData } from '../reference-data/index.js';
import { fleetScenarios, scenarioImportFile, scenarioOutgoing, sendMessages } from '../simulator/index.js';
import type pg from 'pg';

/** The demo data's organisation the scenarios join (schemas/config/demo-data.json). */
const DEMO_ORGANIZATION = 'north';

/** Imports the scenarios (the demo organisation must exist) and queues their histories in `inboxDir`; says what it did. */
export async function seedFleetScenarios({ pool, inboxDir, endMs = Math.floor(Date.now() / 1000) * 1000 }: { pool: pg.Pool; inboxDir: string; endMs?: number }): Promise<string> {
  const scenarios = fleetScenarios({ endMs, organizationId: DEMO_ORGANIZATION });
  const counts = await importReferenceData(pool, scenarioImportFile(scenarios));
  const sent = await sendMessages({ to: 'spool', inboxDir }, scenarioOutgoing(scenarios, String(endMs)));
  return `fleet scenarios (${scenarios.map((s) => s.name).join(', ')}: ${counts.devices.inserted} devices, ${sent} check-ins queued)`;
}
