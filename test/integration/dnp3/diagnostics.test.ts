// Diagnostics for the engineer at the other end (issue 21 point 6), with a simple third-party-like master: a
// raw TLS socket (the north master's certificate) that sends CONFIRMED_USER_DATA without RESET_LINK_STATES
// (no answer at all), and a READ after which it takes the first fragment it receives, the outstation's null
// unsolicited response, for the answer and never confirms it. Each discard is counted per integration and
// reason, in faultline_dnp3_discarded_total and, through the database, in GET /api/dnp3/diagnostics beside the
// point map with the sentence that says what the master must do; the first of each reason per connection is
// the one logged.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { connect, type TLSSocket } from 'node:tls';
import { createMiddleware } from 'hono/factory';
import { registry } from '../../../config/metrics.js';
import { encodeFrame } from '../../../dnp3/link/frame.js';
import { startDnp3Service } from '../../../dnp3/service.js';
import type { DiscardReason } from '../../../dnp3/diagnostics/reasons.js';
import { ApiError } from '../../../api/errors.js';
import type { AuthEnv } from '../../../api/auth/caller.js';
import { pointMapRoutes } from '../../../api/dnp3/point-map.js';
import { DIAGNOSTICS_PATH } from '../../../api/dnp3/endpoints.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { importDemoData } from '../../../support/reference-data.js';
import { waitFor } from '../../../support/wait-for.js';
import { devCerts } from '../../helpers/dev-certs.js';

const certs = devCerts('dnp3-diag-');
const { pem } = certs;

let db: TestDatabase;
let service: Awaited<ReturnType<typeof startDnp3Service>>;
const heard: { reason: DiscardReason; first: boolean }[] = [];

/** A master that speaks raw frames: whatever it sends, it collects every octet the outstation writes back. */
class RawMaster {
  readonly received: Buffer[] = [];
  private constructor(readonly socket: TLSSocket) { socket.on('data', (d: Buffer) => this.received.push(d)); }
  static async open(port: number): Promise<RawMaster> {
    const socket = connect({ host: '127.0.0.1', port, ca: readFileSync(pem('ca')), cert: readFileSync(pem('scada.north.example')), key: readFileSync(pem('scada.north.example-key')), servername: 'outstation.test' });
    await new Promise<void>((resolve, reject) => { socket.once('secureConnect', resolve); socket.once('error', reject); });
    return new RawMaster(socket);
  }
  send(func: number, data: number[], opts: { fcb?: boolean; fcv?: boolean } = {}): void {
    this.socket.write(encodeFrame({ dir: true, prm: true, fcb: opts.fcb ?? false, fcvDfc: opts.fcv ?? false, func, dest: 10, src: 1, data: Uint8Array.from(data) }));
  }
  /** Link control and, for first segments, the application function code of every frame received. */
  frames(): { control: number; appControl: number | null; func: number | null }[] {
    const all = Buffer.concat(this.received);
    const out: { control: number; appControl: number | null; func: number | null }[] = [];
    for (let i = 0; i + 10 <= all.length;) {
      const length = all[i + 2]!;
      const size = 10 + (length - 5) + 2 * Math.ceil((length - 5) / 16);
      const data = length > 5 ? all.subarray(i + 10, i + size) : null;
      const first = data !== null && (data[0]! & 0x40) !== 0;
      out.push({ control: all[i + 3]!, appControl: first ? data[1]! : null, func: first ? data[2]! : null });
      i += size;
    }
    return out;
  }
  close(): void { this.socket.destroy(); }
}

const READ_CLASS_0 = [0xc0, 0xc0, 0x01, 0x3c, 0x01, 0x06];
const counted = async (reason: string) => {
  const line = new RegExp(`^faultline_dnp3_discarded_total\\{integration="north-scada",reason="${reason}"\\} (\\d+)`, 'm').exec(await registry.metrics());
  return line ? Number(line[1]) : 0;
};

test.before(async () => {
  db = await createTestDatabase('dnp3_diag');
  await importDemoData(db.pool);
  service = await startDnp3Service({
    pool: db.pool, port: 0, host: '127.0.0.1', offlineAfterHours: 26,
    tlsFiles: certs.outstation,
    onDiscard: (_i, reason, first) => heard.push({ reason, first }),
  });
});

test.after(async () => {
  await service.close();
  await db.drop();
  certs.remove();
});

test('CONFIRMED_USER_DATA without RESET_LINK_STATES: no answer at all, counted as notReset; the first one per connection is the one logged', async () => {
  const master = await RawMaster.open(service.server.port);
  try {
    master.send(3, READ_CLASS_0, { fcb: true, fcv: true });
    master.send(3, READ_CLASS_0, { fcb: false, fcv: true });
    await waitFor('two notReset counted', async () => (await counted('notReset')) === 2, { timeoutMs: 5_000 });
    await new Promise((r) => setTimeout(r, 500));
    // No link ACK and no application response (FC 0x81): only the null unsolicited response (FC 0x82) came.
    const frames = master.frames();
    assert.ok(frames.length > 0, 'the null unsolicited response at start-up');
    assert.ok(frames.every((f) => f.control !== 0x00), 'no link ACK');
    assert.ok(frames.every((f) => f.func === 0x82), `only unsolicited: ${JSON.stringify(frames)}`);
    assert.equal(heard.filter((h) => h.reason === 'notReset').map((h) => h.first), [true, false]);
  } finally {
    master.close();
  }
  // A new connection logs its first one again.
  const again = await RawMaster.open(service.server.port);
  try {
    again.send(3, READ_CLASS_0, { fcb: true, fcv: true });
    await waitFor('the third notReset', async () => heard.filter((h) => h.reason === 'notReset').length === 3, { timeoutMs: 5_000 });
    assert.is(heard.filter((h) => h.reason === 'notReset')[2]!.first, true);
  } finally {
    again.close();
  }
});

test('a master that takes the null unsolicited response for the answer to its READ and never confirms it: unsolicitedConfirmTimeout', async () => {
  const master = await RawMaster.open(service.server.port);
  try {
    master.send(4, READ_CLASS_0); // unconfirmed user data needs no link reset
    await waitFor('the unsolicited response sent again and counted', async () => (await counted('unsolicitedConfirmTimeout')) >= 1, { timeoutMs: 12_000, intervalMs: 200 });
    // The first fragment it got was FC 0x82 (UNSOLICITED_RESPONSE) with UNS set, not the READ's response.
    const first = master.frames()[0]!;
    assert.is(first.appControl! & 0x10, 0x10, 'UNS bit of the first application header');
    assert.is(first.func, 0x82);
  } finally {
    master.close();
  }
});

test('GET /api/dnp3/diagnostics beside the point map: counts by reason with the sentence, and the master settings expected', async () => {
  const auth = createMiddleware<AuthEnv>(async (c, next) => {
    c.set('caller', { userId: 1, org: 'north', role: 'admin', timeZone: 'UTC', maskFaultDetails: false });
    await next();
  });
  const app = pointMapRoutes({ pool: db.pool, auth });
  app.onError((err, c) => c.json({ code: err instanceof ApiError ? err.code : String(err) }, err instanceof ApiError ? err.status : 500));
  type Body = { integrations: { id: string; unsolicited: boolean; expectedMasterSettings: string[]; discards: { reason: string; count: number; meaning: string; layer: string }[] }[] };
  let body: Body | null = null;
  await waitFor('the counts written by the outstation process', async () => {
    body = (await (await app.request(DIAGNOSTICS_PATH)).json()) as Body;
    const d = body.integrations[0]?.discards ?? [];
    return d.some((x) => x.reason === 'notReset' && x.count === 3) && d.some((x) => x.reason === 'unsolicitedConfirmTimeout');
  }, { timeoutMs: 10_000, intervalMs: 250 });
  const north = body!.integrations.find((i) => i.id === 'north-scada')!;
  const notReset = north.discards.find((d) => d.reason === 'notReset')!;
  assert.is(notReset.layer, 'link');
  assert.match(notReset.meaning, /^confirmed user data before a link reset: ignored, the master must send RESET_LINK_STATES/);
  assert.ok(north.discards.some((d) => d.reason === 'unsolicitedConfirmTimeout'));
  assert.ok(north.expectedMasterSettings.some((s) => s.includes('RESET_LINK_STATES')));
  assert.ok(north.expectedMasterSettings.some((s) => s.startsWith(north.unsolicited ? 'Unsolicited responses: on' : 'Unsolicited responses: off')));
  assert.is((await app.request(`${DIAGNOSTICS_PATH}?x=1`)).status, 400);
});

test.run();
