// support/cpu-profile.ts (bench/profile-summary.ts): who a profile's frames belong to, and self time summed per owner without idle.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ownerOf, summarise } from '../../support/cpu-profile.js';

const root = new URL('../../', import.meta.url).pathname;

test('a frame belongs to its npm package, its faultline file, a Node.js module or V8', () => {
  assert.is(ownerOf({ functionName: 'query', url: `file://${root}node_modules/pg/lib/client.js`, lineNumber: 3 }), 'pg');
  assert.is(ownerOf({ functionName: 'x', url: `file://${root}node_modules/@smithy/core/dist-cjs/index.js`, lineNumber: 0 }), '@smithy/core');
  assert.is(ownerOf({ functionName: 'decide', url: `file://${root}stages/bridge/bridge.ts`, lineNumber: 9 }), 'stages/bridge/bridge.ts');
  assert.is(ownerOf({ functionName: 'wrapSafe', url: 'node:internal/modules/cjs/loader', lineNumber: 1 }), 'node:internal/modules/cjs/loader');
  assert.is(ownerOf({ functionName: '(garbage collector)', url: '', lineNumber: -1 }), '(garbage collector)');
  assert.is(ownerOf({ functionName: 'writev', url: '', lineNumber: -1 }), '(writev)');
});

test('self time per owner, shares of the busy samples only', () => {
  const s = summarise({
    nodes: [
      { id: 1, callFrame: { functionName: '(idle)', url: '', lineNumber: -1 } },
      { id: 2, callFrame: { functionName: 'query', url: `file://${root}node_modules/pg/lib/client.js`, lineNumber: 0 } },
      { id: 3, callFrame: { functionName: 'decide', url: `file://${root}stages/bridge/bridge.ts`, lineNumber: 0 } },
    ],
    samples: [1, 2, 3, 2, 1],
    timeDeltas: [1000, 2000, 3000, 4000, 5000],
  });
  assert.equal([s.totalMs, s.busyMs], [15, 9]);
  assert.equal([...s.byOwner].sort(), [['pg', 6], ['stages/bridge/bridge.ts', 3]]);
  assert.is(s.byFunction.get('query pg:1'), 6);
});

test('the profiler\'s own stop (a native dispatch under node:inspector) is not busy time of the process', () => {
  const s = summarise({
    nodes: [
      { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [2, 4] },
      { id: 2, callFrame: { functionName: 'post', url: 'node:inspector', lineNumber: 111 }, children: [3] },
      { id: 3, callFrame: { functionName: 'dispatch', url: '', lineNumber: -1 } },
      { id: 4, callFrame: { functionName: 'query', url: `file://${root}node_modules/pg/lib/client.js`, lineNumber: 0 } },
    ],
    samples: [3, 4, 3],
    timeDeltas: [5000, 2000, 5000],
  });
  assert.equal([s.totalMs, s.busyMs], [12, 2]);
  assert.equal([...s.byOwner], [['pg', 2]]);
});

test.run();
