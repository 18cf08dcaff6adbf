// A possible de-energised section in a real browser (issue 44 point 4; docs/decisions.md#silent-device-triage):
// feeder north-F9's lateral A (line-powered) goes quiet while the rest of the feeder reports, through the real
// pipeline on the in-process transport into Postgres, then the fleet worker's triage step runs. The map draws the
// section in its own colour, the board shows its alarm with the sentence naming it, the incidents list has none.
// Screenshots: test/artifacts/portal-map-deenergised.png and portal-board-deenergised.png (copied to docs/portal/).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withTransaction } from '../../../db/transaction.js';
import { triageSilence } from '../../../fleet-health/triage.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { localAvroCodec } from '../../../stages/runtime/codec.js';
import { memoryTransport } from '../../../stages/runtime/transport/memory.js';
import { screenshot } from '../../../support/browser.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { startTestPipeline } from '../../../support/pipeline.js';
import { checkPageErrorsAfterEach, servePortal, type PortalSite } from '../../../support/portal-site.js';
import { importDemoData } from '../../../support/reference-data.js';
import { JWT_SECRET, USERS } from '../api/seeded-api.js';
import { every15, HOUR, MIN } from '../fleet/quiet-feeder.js';
import { IMEI, topologyFile } from '../incidents/feeder.js';

let db: TestDatabase;
let site: PortalSite;

test.before(async () => {
  db = await createTestDatabase('portal_deenergised');
  await importDemoData(db.pool);
  await importReferenceData(db.pool, topologyFile());
  const transport = memoryTransport({ codec: localAvroCodec(), partitions: 4 });
  const pipe = await startTestPipeline(transport, db.pool);
  const start = Math.floor((Date.now() - 4 * HOUR) / MIN) * MIN;
  try {
    await pipe.feed([...every15(Object.values(IMEI), start, start + 2 * HOUR), ...every15([IMEI.H, IMEI.T1, IMEI.T2, IMEI.LB1], start + 2 * HOUR + 15 * MIN, Date.now() - 5 * MIN)]);
    await pipe.drain(120_000);
  } finally {
    await pipe.stop();
    await transport.close();
  }
  const r = await withTransaction(db.pool, (client) => triageSilence(client, new Date(), { floorS: 300, ceilingS: 26 * 3600 }));
  assert.is(r.sections.opened.length, 1, 'triage opened the section');
  site = await servePortal({ pool: db.pool, jwtSecret: JWT_SECRET });
});
checkPageErrorsAfterEach(test);
test.after(async () => {
  try { await site?.close(); } finally { await db?.drop(); }
});

test('map: the quiet lateral drawn as a possible de-energised section, with its legend; not a faulted section', async () => {
  const page = await site.browserAs(USERS.northAdmin);
  await page.goto(`${site.base}/map`);
  await page.waitForSelector('[data-testid="map"][data-deenergised-sections="1"]');
  assert.is(await page.getByTestId('map').getAttribute('data-incident-sections'), '0', 'no faulted section');
  assert.match(await page.getByTestId('deenergised-legend').innerText(), 'possible de-energised section');
  await screenshot(page, 'portal-map-deenergised');
});

test('board: the section\'s alarm names it; the incidents list has no incident', async () => {
  const page = await site.browserAs(USERS.northAdmin);
  await page.goto(`${site.base}/board`);
  const summary = page.getByTestId('alarm-summary').filter({ hasText: 'Possible de-energised section' });
  await summary.waitFor();
  assert.match(await summary.innerText(), /^Possible de-energised section Lateral A on Feeder 9: 2 line-powered indicators silent from F9 LA1 down since .*, no trip$/);
  await screenshot(page, 'portal-board-deenergised');
  await page.goto(`${site.base}/incidents`);
  await page.getByText('No incidents.').waitFor();
});

test.run();
