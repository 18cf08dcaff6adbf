// SOAP attacks (issue 7, part 5) on the MultiSpeak server over real HTTP (the app on a loopback port, a fresh
// database with the fixture reference data): XML external entities (file and a loopback URL that records any
// fetch), billion laughs, oversized envelopes (declared and streamed without a length), malformed and deeply
// nested XML, wrong credentials and a password guesser. Each is a SOAP 1.1 Client fault (or 413) without
// data; a legitimate GetAllSCADAPoints is answered during and after; no answer carries a fixture secret.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import { Readable } from 'node:stream';
import { serve, type ServerType } from '@hono/node-server';
import { createApp } from '../../api/app.js';
import { NAMESPACE } from '../../multispeak/versions.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { importDemoData } from '../../support/reference-data.js';
import { reportTally } from '../helpers/tally.js';
import { Capture, findSecrets } from './secrets.js';

let db: TestDatabase;
let server: ServerType | undefined;
let trap: Server | undefined;
let base = '';
let trapUrl = '';
const trapHits: string[] = [];
const seen = new Capture();
let tried = 0;
let refused = 0;

const NORTH_ADMIN = { user: 'admin@north.example', pwd: 'north-Admin-Pass-1' };
const envelope = (header: string, body: string, prolog = '<?xml version="1.0"?>') =>
  `${prolog}<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:m="${NAMESPACE['4.1']}"><soap:Header>${header}</soap:Header><soap:Body>${body}</soap:Body></soap:Envelope>`;
const header = (user: string, pwd: string) => `<m:MultiSpeakMsgHeader MajorVersion="4" MinorVersion="1" BuildString="Release" UserID="${user}" Pwd="${pwd}"/>`;
const GET_ALL = '<m:GetAllSCADAPoints><m:lastReceived></m:lastReceived></m:GetAllSCADAPoints>';
const legitimate = () => envelope(header(NORTH_ADMIN.user, NORTH_ADMIN.pwd), GET_ALL);

async function post(body: string | Buffer | ReadableStream, headers: Record<string, string> = {}, address = '127.0.0.1'): Promise<{ status: number; text: string; ms: number }> {
  const started = Date.now();
  const res = await fetch(`${base}/soap`, { method: 'POST', headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '""', 'x-test-address': address, ...headers }, body, ...(body instanceof ReadableStream ? { duplex: 'half' } : {}) } as RequestInit);
  return { status: res.status, text: await res.text(), ms: Date.now() - started };
}

async function legitimateServed(when: string): Promise<void> {
  const r = await post(legitimate(), {}, '192.0.2.200');
  assert.is(r.status, 200, `legitimate request ${when}: ${r.text.slice(0, 300)}`);
  assert.match(r.text, /861000000000000/, `legitimate request ${when}: north's points`);
}

/** A refusal: a SOAP Client fault (HTTP 500, SOAP 1.1) or a plain 4xx; no point data, no file content. */
async function refusedAttack(label: string, body: string | Buffer | ReadableStream, headers: Record<string, string> = {}, address = '127.0.0.1'): Promise<string> {
  tried++;
  const r = await post(body, headers, address);
  seen.add(label, `${r.status} ${r.text}`);
  const fault = /<faultcode>soap:Client<\/faultcode>/.test(r.text);
  assert.ok((r.status === 500 && fault) || (r.status >= 400 && r.status < 500), `${label}: refused (${r.status} ${r.text.slice(0, 300)})`);
  assert.not.match(r.text, /objectID|8610000000|root:x:0|<scadaPoint/i, `${label}: no data in the refusal`);
  assert.not.match(r.text, /\bat .+\.(ts|js):\d+|node_modules/, `${label}: no stack`);
  // Refused, not left hanging (a password check takes a moment; 5 s was passed on a loaded CI machine).
  assert.ok(r.ms < 10_000, `${label}: refused in ${r.ms} ms`);
  refused++;
  return r.text;
}

test.before(async () => {
  db = await createTestDatabase('soapattack');
  await importDemoData(db.pool);
  const app = createApp({ readiness: {}, pool: db.pool, jwtSecret: new TextEncoder().encode('soap-attack-secret-of-at-least-32-bytes'), clientAddress: (c) => c.req.header('x-test-address') ?? '127.0.0.1' });
  const port = await new Promise<number>((resolve) => { server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port)); });
  base = `http://127.0.0.1:${port}`;
  // A loopback server that records any request: an external entity or DTD the parser fetched would land here.
  trap = createServer((req, res) => { trapHits.push(req.url ?? ''); res.end('<!ENTITY x "pwned">'); });
  await new Promise<void>((resolve) => trap!.listen(0, '127.0.0.1', resolve));
  trapUrl = `http://127.0.0.1:${(trap.address() as { port: number }).port}`;
});

test.after(async () => {
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  await new Promise<void>((done) => (trap ? trap.close(() => done()) : done()));
  await db?.drop();
  reportTally('soap-attacks', { attacksTried: tried, attacksRefused: refused });
});

test('XML external entities and DTDs: refused, nothing read, nothing fetched', async () => {
  await legitimateServed('before the attacks');
  const doctype = (decl: string) => `<?xml version="1.0"?><!DOCTYPE soap:Envelope [${decl}]>`;
  const attacks: [string, string][] = [
    ['XXE file in the user id', envelope(header('&xxe;', 'x'), GET_ALL, doctype('<!ENTITY xxe SYSTEM "file:///etc/passwd">'))],
    ['XXE file in the body', envelope(header(NORTH_ADMIN.user, NORTH_ADMIN.pwd), '<m:GetAllSCADAPoints><m:lastReceived>&xxe;</m:lastReceived></m:GetAllSCADAPoints>', doctype('<!ENTITY xxe SYSTEM "file:///etc/passwd">'))],
    ['XXE loopback URL', envelope(header('&xxe;', 'x'), GET_ALL, doctype(`<!ENTITY xxe SYSTEM "${trapUrl}/entity">`))],
    ['external DTD', envelope(header(NORTH_ADMIN.user, NORTH_ADMIN.pwd), GET_ALL, `<?xml version="1.0"?><!DOCTYPE soap:Envelope SYSTEM "${trapUrl}/dtd">`)],
    ['parameter entity', envelope(header(NORTH_ADMIN.user, NORTH_ADMIN.pwd), GET_ALL, doctype(`<!ENTITY % p SYSTEM "${trapUrl}/param"> %p;`))],
    ['DOCTYPE after whitespace and a comment', `\n<!-- x -->\n<!DOCTYPE a [<!ENTITY xxe SYSTEM "file:///etc/hostname">]>` + envelope(header('&xxe;', 'x'), GET_ALL, '')],
    ['DOCTYPE in UTF-16', Buffer.from('\ufeff' + envelope(header('&xxe;', 'x'), GET_ALL, doctype('<!ENTITY xxe SYSTEM "file:///etc/passwd">').replace('<?xml version="1.0"?>', '<?xml version="1.0" encoding="UTF-16"?>')), 'utf16le').toString('latin1')],
  ];
  for (const [label, body] of attacks) await refusedAttack(label, body);
  // XInclude is not processed: with valid credentials the answer is the points, never the file.
  tried++;
  const xi = await post(envelope(header(NORTH_ADMIN.user, NORTH_ADMIN.pwd), `<m:GetAllSCADAPoints xmlns:xi="http://www.w3.org/2001/XInclude"><m:lastReceived><xi:include href="file:///etc/passwd" parse="text"/><xi:include href="${trapUrl}/xi"/></m:lastReceived></m:GetAllSCADAPoints>`));
  seen.add('XInclude', xi.text);
  assert.not.match(xi.text, /root:x:0|pwned/, 'XInclude not expanded');
  refused++;
  assert.equal(trapHits, [], 'the parser fetched nothing');
});

test('billion laughs and quadratic blow-up: refused at once, memory steady', async () => {
  const lol = ['<!ENTITY lol "lol">', ...Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`)].join('');
  const before = process.memoryUsage().rss;
  await refusedAttack('billion laughs', envelope(header('&lol9;', 'x'), GET_ALL, `<?xml version="1.0"?><!DOCTYPE lolz [${lol}]>`));
  await refusedAttack('quadratic blow-up', envelope(header('&a;'.repeat(2000), 'x'), GET_ALL, `<?xml version="1.0"?><!DOCTYPE q [<!ENTITY a "${'x'.repeat(20_000)}">]>`));
  assert.ok(process.memoryUsage().rss - before < 200 * 1024 * 1024, 'no blow-up in memory');
  await legitimateServed('after billion laughs');
});

test('oversized envelopes: declared, streamed without a length, and 10 MB: refused', async () => {
  const padded = (bytes: number) => envelope(header(NORTH_ADMIN.user, NORTH_ADMIN.pwd), GET_ALL).replace('<soap:Body>', `<soap:Body><!--${'p'.repeat(bytes)}-->`);
  await refusedAttack('64 KiB + 1 envelope', padded(64 * 1024 + 1));
  await refusedAttack('10 MB envelope', padded(10 * 1024 * 1024));
  const chunks = function* () { for (let i = 0; i < 160; i++) yield Buffer.alloc(64 * 1024, 0x20); };
  await refusedAttack('10 MB streamed without Content-Length', Readable.toWeb(Readable.from(chunks())) as unknown as ReadableStream);
  await refusedAttack('10,000 nested elements', envelope(header(NORTH_ADMIN.user, NORTH_ADMIN.pwd), `${'<m:x>'.repeat(10_000)}${'</m:x>'.repeat(10_000)}`));
  await legitimateServed('after oversized envelopes');
});

test('malformed requests: not XML, wrong envelope, wrong content type', async () => {
  const bodies: [string, string, Record<string, string>?][] = [
    ['truncated XML', legitimate().slice(0, 150)], ['not XML', '{"UserID": "admin@north.example"}'], ['empty body', ''],
    ['no header', envelope('', GET_ALL)], ['unknown operation', envelope(header(NORTH_ADMIN.user, NORTH_ADMIN.pwd), '<m:DeleteAllTheThings/>')],
    ['wrong namespace', legitimate().replace(NAMESPACE['4.1'], 'http://evil.example/')], ['SOAP 1.2 envelope', legitimate().replace('http://schemas.xmlsoap.org/soap/envelope/', 'http://www.w3.org/2003/05/soap-envelope')],
    ['NUL byte', legitimate().replace('GetAllSCADAPoints>', 'GetAllSCADAPoints\u0000>')],
  ];
  for (const [label, body, headers] of bodies) await refusedAttack(label, body, headers);
});

test('wrong credentials: refused without data; a password guesser is rate limited; others still served', async () => {
  const creds: [string, string, string][] = [
    ['wrong password', NORTH_ADMIN.user, 'north-Admin-Pass-2'], ['unknown user', 'nobody@north.example', 'x'], ['empty', '', ''],
    ['SQL in user id', "admin@north.example' or '1'='1", "' or '1'='1"], ['another org\'s password', NORTH_ADMIN.user, 'south-Admin-Pass-1'],
    ['MultiSpeak integration user', 'fi-north', 'north-oms-secret'], ['attribute injection', 'admin@north.example" Pwd="x', 'y'],
  ];
  for (const [label, user, pwd] of creds) await refusedAttack(`credentials: ${label}`, envelope(header(user.replace(/"/g, '&quot;'), pwd), GET_ALL), {}, `198.51.100.${tried}`);
  let limited = 0;
  for (let i = 0; i < 14; i++) {
    const text = await refusedAttack(`guess ${i}`, envelope(header('admin@south.example', `guess-${i}`), GET_ALL), {}, `203.0.113.${i}`);
    if (/RATE_LIMITED|rate|too many/i.test(text)) limited++;
  }
  assert.ok(limited >= 4, `the guesser is rate limited after 10 failures (${limited} limited answers)`);
  await legitimateServed('while a guesser is limited');
});

test('no answer carried a fixture secret', () => {
  assert.equal(findSecrets(seen.text()), []);
});

test.run();
