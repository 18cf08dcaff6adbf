// The header rules of a fleet-wide answer: If-None-Match and Accept-Encoding (api/request.ts), and its cached forms (api/device-records/fleet-answer.ts).
import { gunzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FleetAnswer } from '../../api/device-records/fleet-answer.js';
import { acceptsGzip, matchesEtag } from '../../api/request.js';

const test = suite('fleet answer');

test('the ETag is the body\'s: equal bodies, equal tags; another body, another tag', () => {
  const a = new FleetAnswer('{"data":[1]}');
  assert.is(a.etag, new FleetAnswer('{"data":[1]}').etag);
  assert.is.not(a.etag, new FleetAnswer('{"data":[2]}').etag);
  assert.match(a.etag, /^"[\w-]{27}"$/);
});

test('If-None-Match: the tag, in a list, weak, or *; never a near miss or nothing', () => {
  const tag = '"abc"';
  for (const h of ['"abc"', '"x", "abc"', 'W/"abc"', '*', ' "abc" ']) assert.ok(matchesEtag(h, tag), h);
  for (const h of [undefined, '', '"abcd"', 'abc', '"ab"']) assert.not.ok(matchesEtag(h, tag), String(h));
});

test('Accept-Encoding: gzip when offered with a weight above 0', () => {
  for (const h of ['gzip', 'gzip, deflate, br', 'br;q=1.0, gzip;q=0.8', 'GZIP', 'x-gzip']) assert.ok(acceptsGzip(h), h);
  for (const h of [undefined, '', 'br', 'identity', 'gzip;q=0', 'gzip; q=0.0']) assert.not.ok(acceptsGzip(h), String(h));
});

test('the body is the JSON\'s UTF-8 bytes, a name with accents too, and the tag is theirs', () => {
  const json = '{"data":[{"Real_Name":"Poste Saint-\u00c9tienne \u2192 F12"}]}';
  const a = new FleetAnswer(json);
  assert.is(Buffer.from(a.json).toString('utf8'), json);
  assert.is(a.json.byteLength, Buffer.byteLength(json));
  assert.is(a.etag, new FleetAnswer(json).etag);
});

test('the gzip body unpacks to the JSON and is made once', async () => {
  const json = JSON.stringify({ data: Array.from({ length: 1000 }, (_, i) => ({ IMEINumber: String(i), Lat: 41 + i / 1e5 })) });
  const a = new FleetAnswer(json);
  const first = await a.gzip();
  assert.is(gunzipSync(first).toString(), json);
  assert.ok(first.length < json.length / 3);
  assert.is(await a.gzip(), first);
});

test.run();
