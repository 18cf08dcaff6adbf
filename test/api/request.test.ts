// The request kit (api/request.ts): every router reads its JSON body, its path ids and who the caller is with
// it, so each refusal is the one 4xx naming the problem (docs/decisions.md#a-request-kit-and-write-endpoints).
// A Hono app of its own, no servers: the kit is pure over the request.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Hono } from 'hono';
import { renderError } from '../../api/errors.js';
import { jsonObjectBody, limitBody, requireJsonType, wholeNumberId } from '../../api/request.js';

const app = new Hono();
app.post('/object', limitBody(64), async (c) => c.json(await jsonObjectBody(c)));
app.post('/optional', limitBody(64), async (c) => c.json(await jsonObjectBody(c, { optional: true })));
app.post('/login', requireJsonType({ noun: 'The login body' }), limitBody(64, { noun: 'The login body' }), async (c) => c.json(await jsonObjectBody(c, { noun: 'The login body' })));
app.post('/alarms/:id', (c) => c.json({ id: wholeNumberId(c.req.param('id'), 'an alarm') }));
app.onError(renderError);

const post = (path: string, body: string, type: string | null = 'application/json') =>
  app.request(path, { method: 'POST', body, headers: type === null ? {} : { 'content-type': type } });

async function refused(res: Response, status: number, code: string, message: RegExp): Promise<void> {
  assert.is(res.status, status);
  const { error } = await res.json() as { error: { code: string; message: string } };
  assert.is(error.code, code);
  assert.match(error.message, message);
}

test('a JSON object is read; +json and a charset are JSON', async () => {
  assert.equal(await (await post('/object', '{"a":1}')).json(), { a: 1 });
  assert.equal(await (await post('/object', '{"a":1}', 'application/merge-patch+json; charset=utf-8')).json(), { a: 1 });
});

test('another content type is a 415 naming the body, in the route\'s words', async () => {
  await refused(await post('/object', '{"a":1}', 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE', /^The body must be sent as Content-Type: application\/json\.$/);
  await refused(await post('/object', '{"a":1}', null), 415, 'UNSUPPORTED_MEDIA_TYPE', /^The body must be sent/);
  await refused(await post('/login', '{"a":1}', 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE', /^The login body must be sent/);
});

test('a body over the limit is a 413 before it is read; the login\'s type is judged first', async () => {
  await refused(await post('/object', JSON.stringify({ a: 'x'.repeat(100) })), 413, 'PAYLOAD_TOO_LARGE', /^The body must be at most 64 bytes\.$/);
  await refused(await post('/login', JSON.stringify({ a: 'x'.repeat(100) })), 413, 'PAYLOAD_TOO_LARGE', /^The login body must be at most 64 bytes\.$/);
  await refused(await post('/login', JSON.stringify({ a: 'x'.repeat(100) }), 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE', /login body/);
});

test('text that is not JSON, or JSON that is not an object, is a 400 naming the body', async () => {
  await refused(await post('/object', '{"a":'), 400, 'INVALID_BODY', /not valid JSON/);
  for (const body of ['[]', 'null', '"a"', '1']) await refused(await post('/object', body), 400, 'INVALID_BODY', /must be a JSON object/);
});

test('an optional body may be empty (of any type); when given it is judged like any other', async () => {
  assert.equal(await (await post('/optional', '', null)).json(), {});
  assert.equal(await (await post('/optional', '  ', 'text/plain')).json(), {});
  await refused(await post('/optional', '{"a":1}', 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE', /^The body/);
  await refused(await post('/optional', '[1]'), 400, 'INVALID_BODY', /must be a JSON object/);
});

test('a path id that is not a whole number is a 400 naming the parameter and what it is', async () => {
  assert.equal(await (await post('/alarms/42', '')).json(), { id: 42 });
  for (const id of ['x', '-1', '1.5', '1234567890123456']) {
    await refused(await post(`/alarms/${id}`, ''), 400, 'BAD_PARAMETER', /^Path parameter "id" must be an alarm id \(a positive whole number\)\.$/);
  }
});

test.run();
