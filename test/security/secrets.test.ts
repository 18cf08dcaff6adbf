// Secrets (issue 7, part 6): the fixture passwords and MultiSpeak credentials (test/fixtures/import.json)
// never appear in logs, API responses or error bodies. The service runs as operators run it: `faultline
// import` and `faultline secrets rotate` as commands, `faultline start --only api` as a process at debug log
// level, all output captured; every user logs in right and wrong, uses the API and the SOAP server with right
// and wrong credentials (including the MultiSpeak integration credentials), and reaches error paths. Every
// captured log line and response is searched for every secret (plain, URL- and JSON-escaped, base64); the
// database holds them only hashed or encrypted.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { NAMESPACE } from '../../multispeak/versions.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { freePort, startFaultline, type FaultlineProcess } from '../../support/process.js';
import { FIXTURES_DIR } from '../../support/checkins.js';
import { reportTally } from '../helpers/tally.js';
import { waitFor } from '../../support/wait-for.js';
import { Capture, findSecrets, fixtureSecrets } from './secrets.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
let db: TestDatabase;
let api: FaultlineProcess;
let base = '';
const seen = new Capture();
const commandOutput: string[] = [];
let tried = 0;
let refused = 0;
const env = () => ({
  DATABASE_URL: db.url, LOG_LEVEL: 'debug', FAULTLINE_SECRET_KEYS: `k1:${Buffer.alloc(32, 3).toString('base64')}`,
  JWT_SECRET: randomBytes(32).toString('hex'), DEMO_DATA: '0', SIMULATE: '0', KAFKA_BROKERS: '', SQS_QUEUE_URL: '',
});

function command(args: string[]): string {
  const r = spawnSync(process.execPath, ['bin/faultline.js', ...args], { cwd: root, env: { ...process.env, ...env() }, encoding: 'utf8', timeout: 60_000 });
  const out = `${r.stdout}${r.stderr}`;
  commandOutput.push(`$ faultline ${args.join(' ')}\n${out}`);
  assert.is(r.status, 0, `faultline ${args.join(' ')}: ${out.slice(-1000)}`);
  return out;
}

const users = () => fixtureSecrets().filter((s) => s.label.startsWith('password of ')).map((s) => ({ email: s.label.slice('password of '.length), password: s.value }));

async function call(label: string, path: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(`${base}${path}`, init);
  const text = await res.clone().text();
  seen.add(label, `${res.status} ${[...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}\n${text}`);
  return res;
}

test.before(async () => {
  db = await createTestDatabase('secrets');
  const envelope = env();
  Object.assign(env, () => envelope); // one JWT secret for every command and the server
  command(['import', fileURLToPath(new URL('import.json', FIXTURES_DIR))]);
  command(['import', fileURLToPath(new URL('import.json', FIXTURES_DIR))]); // the idempotent re-import path too
  command(['secrets', 'rotate']);
  const port = await freePort();
  api = startFaultline(['start', '--only', 'api'], { ...env(), PORT: String(port), HOST: '127.0.0.1' });
  base = `http://127.0.0.1:${port}`;
  await waitFor('the API to answer', async () => (await fetch(`${base}/healthz`)).ok, { timeoutMs: 60_000, intervalMs: 200 });
});

test.after(async () => {
  await api?.stop();
  await db?.drop();
  reportTally('secrets', { attacksTried: tried, attacksRefused: refused });
});

test('logins right and wrong, the API with a token, error paths', async () => {
  for (const { email, password } of users()) {
    const ok = await call(`login ${email}`, '/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
    assert.is(ok.status, 200);
    const { accessToken } = await ok.json() as { accessToken: string };
    for (const path of ['/device-records/all-devices', '/device-records/map-data', '/api/dnp3/dnp3OrganizationDevices', '/device-records/device-information/861000000000000', '/device-records/data-log?limit=abc']) {
      await call(`${email} ${path}`, path, { headers: { authorization: `Bearer ${accessToken}` } });
    }
    // Wrong passwords that contain the real one, and the real one in the wrong field: refused, never echoed.
    for (const body of [{ email, password: `${password}x` }, { email: password, password }, { email, password: password.toUpperCase() }, { email: `${email}x`, password }]) {
      tried++;
      const res = await call(`wrong login ${email}`, '/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      assert.ok([400, 401].includes(res.status), `wrong login refused: ${res.status}`);
      refused++;
    }
    tried++;
    const malformed = await call(`malformed login ${email}`, '/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"email":"${email}","password":"${password}"` });
    assert.is(malformed.status, 400);
    refused++;
  }
  for (const path of ['/metrics', '/readyz', '/healthz', '/openapi.json', '/nope']) await call(path, path);
});

test('SOAP with right and wrong credentials, including the MultiSpeak integration credentials', async () => {
  const soap = (user: string, pwd: string) => `<?xml version="1.0"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:m="${NAMESPACE['4.1']}"><soap:Header>`
    + `<m:MultiSpeakMsgHeader MajorVersion="4" MinorVersion="1" BuildString="Release" UserID="${user}" Pwd="${pwd}"/></soap:Header><soap:Body><m:GetAllSCADAPoints><m:lastReceived></m:lastReceived></m:GetAllSCADAPoints></soap:Body></soap:Envelope>`;
  const post = (label: string, body: string) => call(label, '/soap', { method: 'POST', headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '""' }, body });
  for (const { email, password } of users()) {
    assert.is((await post(`soap ${email}`, soap(email, password))).status, 200);
    tried++;
    assert.is((await post(`soap wrong ${email}`, soap(email, `${password}!`))).status, 500, 'a SOAP Client fault');
    refused++;
    tried++;
    await post(`soap truncated ${email}`, soap(email, password).slice(0, 400));
    refused++;
  }
  for (const s of fixtureSecrets().filter((x) => x.label.startsWith('MultiSpeak'))) {
    tried++;
    const res = await post(`soap integration ${s.label}`, soap(s.label.includes('north') ? 'fi-north' : 'fi-south', s.value));
    assert.is(res.status, 500, 'integration credentials are not portal logins');
    refused++;
  }
});

test('no secret in any response, log line or command output; the database holds none in plain text', async () => {
  await new Promise((r) => setTimeout(r, 300)); // the last log lines flushed
  const logs = api.output();
  assert.ok(logs.includes('"level":20') || logs.includes('"level":30'), 'logs were captured');
  assert.ok(seen.count > 40, `responses captured (${seen.count})`);
  assert.equal(findSecrets(seen.text()), [], 'responses');
  assert.equal(findSecrets(logs), [], 'service logs');
  assert.equal(findSecrets(commandOutput.join('\n')), [], 'command output');
  const dump = JSON.stringify((await db.pool.query('select * from users')).rows) + JSON.stringify((await db.pool.query('select * from integrations')).rows);
  assert.equal(findSecrets(dump), [], 'database');
});

test.run();
