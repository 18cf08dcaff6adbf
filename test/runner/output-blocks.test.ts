// test/run.ts runs two lanes at once; each suite's output still reaches the console whole (test/helpers/output-blocks.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { outputBlocks } from '../helpers/output-blocks.js';

test('the first block streams live; one opened meanwhile is kept whole and printed after it', () => {
  const out: string[] = [];
  const blocks = outputBlocks((t) => out.push(t));
  const server = blocks.open();
  server.write('== server\n');
  const unit = blocks.open();
  unit.write('== unit\n');
  server.write('server dot\n');
  unit.write('unit done\n');
  assert.equal(out, ['== server\n', 'server dot\n'], 'live output of the first block only');
  unit.close();
  server.write('server done\n');
  server.close();
  assert.equal(out.join(''), '== server\nserver dot\nserver done\n== unit\nunit done\n');
});

test('when the live block closes, the oldest still running goes live with what it kept so far', () => {
  const out: string[] = [];
  const blocks = outputBlocks((t) => out.push(t));
  const a = blocks.open();
  const b = blocks.open();
  b.write('b1 ');
  a.write('a ');
  a.close();
  assert.equal(out.join(''), 'a b1 ');
  b.write('b2 ');
  assert.equal(out.join(''), 'a b1 b2 ', 'b now streams live');
  const c = blocks.open();
  c.write('c ');
  b.close();
  c.close();
  assert.equal(out.join(''), 'a b1 b2 c ');
});

test('blocks that finished while another streamed are printed in the order they finished, never interleaved', () => {
  const out: string[] = [];
  const blocks = outputBlocks((t) => out.push(t));
  const live = blocks.open();
  const x = blocks.open();
  const y = blocks.open();
  x.write('x1 '); y.write('y1 '); x.write('x2 '); y.write('y2 ');
  y.close();
  x.close();
  live.write('live ');
  live.close();
  assert.equal(out.join(''), 'live y1 y2 x1 x2 ');
  const after = blocks.open();
  after.write('after');
  assert.equal(out.join(''), 'live y1 y2 x1 x2 after', 'the console is free again');
});

test.run();
