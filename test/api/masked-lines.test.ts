// The mask policy's pass-through of a text stream a route masked itself (api/fault-mask-policy.ts
// `maskedLines`, review M2): masked by whole lines as chunks pass, so a class term cut between two chunks is
// still masked, and the result is the whole text's mask. Pure: no server.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { maskedLines } from '../../api/fault-mask-policy.js';
import { maskText } from '../../domain/fault-masking.js';

const test = suite('masked lines');

async function through(chunks: string[]): Promise<string[]> {
  const encoder = new TextEncoder();
  const source = new ReadableStream<Uint8Array>({ start(c) { for (const t of chunks) c.enqueue(encoder.encode(t)); c.close(); } });
  const out: string[] = [];
  const decoder = new TextDecoder();
  for await (const chunk of maskedLines(source)) out.push(decoder.decode(chunk));
  return out;
}

test('a class term cut between chunks is masked; each whole line leaves with its chunk', async () => {
  const chunks = ['id,kind\n1,perma', 'nent\n2,momentary fault\n', '3,ok'];
  const out = await through(chunks);
  assert.equal(out, ['id,kind\n', '1,Fault\n2,Fault\n', '3,ok']);
  assert.is(out.join(''), maskText(chunks.join('')));
});

test('a character cut between chunks (UTF-8) and text without a line break are kept whole', async () => {
  const bytes = new TextEncoder().encode('é permanent\n');
  const source = new ReadableStream<Uint8Array>({ start(c) { c.enqueue(bytes.slice(0, 1)); c.enqueue(bytes.slice(1)); c.close(); } });
  let text = '';
  for await (const chunk of maskedLines(source)) text += new TextDecoder().decode(chunk);
  assert.is(text, 'é Fault\n');
  assert.equal(await through(['no break permanent']), ['no break Fault']);
});

test.run();
