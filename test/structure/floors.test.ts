// The floors of the house hold (lint/floors.js, docs/architecture.md#floors): the lint rule that `npm test`
// runs refuses an import that runs back up, shown here on fixtures the real ESLint configuration lints, and
// every folder of code stands on a floor, so a folder added later is placed or lint fails.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { circleProblem, FLOORS, INNER_FLOORS, innerProblem, PENDING_CIRCLES, roomGraph, upwardProblem } from '../../lint/floors.js';
import { productionFiles } from '../../lint/imports.js';

const test = suite('floors');
const root = new URL('../..', import.meta.url).pathname;
const eslint = new ESLint({ cwd: root });

async function floorErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, file) });
  return result!.messages.filter((m) => m.ruleId === 'floors/downward-only').map((m) => m.message);
}

test('an import that runs back up fails lint, one that runs down passes', async () => {
  const up = await floorErrors('domain/upward-fixture.ts', "import { createApp } from '../api/app.js';\nexport const x = createApp;\n");
  assert.is(up.length, 1);
  assert.match(up[0]!, /domain\/ \(floor 1\) must not import api\//);
  assert.equal(await floorErrors('api/downward-fixture.ts', "import { FAULT_EVENTS } from '../domain/fault-events.js';\nexport const x = FAULT_EVENTS;\n"), []);
  // Plumbing may not reach into the stages it serves (the arrows this structure removed).
  assert.is((await floorErrors('plumbing/upward-fixture.ts', "import { CHAIN_INPUT } from '../stages/shape.js';\nexport const x = CHAIN_INPUT;\n")).length, 1);
  // Nor a dynamic import, nor a re-export.
  assert.is((await floorErrors('config/upward-fixture.ts', "export { CHAIN_INPUT } from '../stages/shape.js';\nexport const f = () => import('../api/app.js');\n")).length, 2);
});

test('folders on one floor stay apart; the portal reads only the pure rules', () => {
  assert.match(upwardProblem('stages', 'incidents') ?? '', /one floor/);
  assert.is(upwardProblem('stages', 'alarms'), null);
  assert.match(upwardProblem('portal', 'api') ?? '', /portal\/ may import only domain/);
  assert.is(upwardProblem('portal', 'domain'), null);
});

test('every folder that holds code stands on a floor', () => {
  const placed = new Set([...FLOORS.flat(), 'portal']);
  const IGNORED = new Set(['node_modules', 'docs', 'ops', 'lint']);
  const hasCode = (dir: string): boolean => readdirSync(dir).some((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? n !== 'node_modules' && n !== 'dist' && hasCode(p) : /\.(ts|tsx)$/.test(n);
  });
  const unplaced = readdirSync(root).filter((n) => !n.startsWith('.') && !IGNORED.has(n) && statSync(join(root, n)).isDirectory() && hasCode(join(root, n)) && !placed.has(n));
  assert.equal(unplaced, [], 'give these folders a floor in lint/floors.js');
});

test('inside dnp3/ and iec104/ imports run downward between the rooms too', async () => {
  // The climbs the top-level rule could not see (issue 41): diagnostics/ reading the outstation's read limit,
  // iec104's data/ reading the outstation and identity.ts that import data/ themselves.
  const dnp3Climb = await floorErrors('dnp3/diagnostics/upward-fixture.ts', "import { MAX } from '../outstation/read.js';\nexport const x = MAX;\n");
  assert.is(dnp3Climb.length, 1);
  assert.match(dnp3Climb[0]!, /dnp3\/diagnostics \(floor \d inside dnp3\/\) must not import dnp3\/outstation/);
  assert.is((await floorErrors('iec104/data/upward-fixture.ts', "import type { Iec104Outstation } from '../outstation.js';\nimport { iec104IntegrationFromRow } from '../identity.js';\nexport type X = Iec104Outstation;\nexport const f = iec104IntegrationFromRow;\n")).length, 2);
  // Downward, and within one room, passes.
  assert.equal(await floorErrors('dnp3/outstation/downward-fixture.ts', "import { Iin } from '../app/header.js';\nimport { EventBuffer } from './event-buffer.js';\nexport const x = [Iin, EventBuffer];\n"), []);
  assert.equal(await floorErrors('iec104/service-fixture.ts', "import { applyDevice } from './data/apply.js';\nexport const x = applyDevice;\n"), [`iec104/service-fixture.ts has no floor inside iec104/: give it one in lint/floors.js (INNER_FLOORS)`]);
  assert.match(innerProblem('iec104', 'identity.ts', 'outstation.ts') ?? '', /one floor/);
  assert.is(innerProblem('api', 'dnp3', 'auth'), null, 'a folder not listed keeps only the top-level rule');
});

test('inside every other folder an import that closes a circle between its rooms fails lint', async () => {
  // stages/runtime/stage.ts reads transport/ (a batch, an outgoing message): transport/ reading stage.ts back closes a circle.
  const circle = await floorErrors('stages/runtime/transport/circle-fixture.ts', "import type { Stage } from '../stage.js';\nexport type X = Stage<unknown>;\n");
  assert.equal(circle, ['stages/runtime/transport must not import stages/runtime/stage.ts, which imports it back (stage.ts -> transport): no circle between the rooms of a folder (docs/architecture.md#floors)']);
  // Deeper too, and between two files of one folder.
  assert.is((await floorErrors('stages/bridge/circle-fixture.ts', "import { bridgeStage } from './stage.js';\nexport const x = bridgeStage;\n")).length, 0, 'a new file that nothing imports closes no circle');
  const files = circleProblem('x', 'a.ts', 'b.ts', new Map([['b.ts', new Set(['c'])], ['c', new Set(['a.ts'])]]));
  assert.match(files ?? '', /x\/a\.ts must not import x\/b\.ts, which imports it back \(b\.ts -> c -> a\.ts\)/);
  assert.is(circleProblem('x', 'a.ts', 'b.ts', new Map([['b.ts', new Set(['c'])]])), null);
  // Downward inside a folder passes.
  assert.equal(await floorErrors('stages/runtime/circle-free-fixture.ts', "import type { Batch } from './transport/transport.js';\nexport type X = Batch<unknown>;\n"), []);
});

test('no circle between the rooms of any folder of production code, and every pending exemption is still needed', () => {
  const dirs = new Set(productionFiles().flatMap((f) => f.split('/').slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join('/'))));
  const circles: string[] = [];
  for (const dir of dirs) {
    if (INNER_FLOORS[dir]) continue; // ordered by its listed floors
    for (const [from, tos] of roomGraph(dir)) for (const to of tos) { const p = circleProblem(dir, from, to); if (p) circles.push(p); }
  }
  assert.equal(circles, []);
  // An exemption lifted, its room must still stand in a circle, or the entry goes.
  const stale = Object.entries(PENDING_CIRCLES).flatMap(([dir, rooms]) => rooms.filter((room) => {
    const whole = roomGraph(dir, []);
    return ![...(whole.get(room) ?? [])].some((to) => circleProblem(dir, room, to, whole, []) !== null);
  }).map((room) => `${dir}/${room}`));
  assert.equal(stale, [], 'no longer in a circle: delete these from PENDING_CIRCLES in lint/floors.js');
});

test('every room of dnp3/ and iec104/ stands on a floor of its own folder', () => {
  for (const [folder, floors] of Object.entries(INNER_FLOORS)) {
    const placed = new Set(floors.flat());
    const rooms = readdirSync(join(root, folder)).filter((n) => (statSync(join(root, folder, n)).isDirectory() || n.endsWith('.ts')));
    assert.equal(rooms.filter((r) => !placed.has(r)), [], `give these rooms of ${folder}/ a floor in lint/floors.js`);
    assert.equal([...placed].filter((r) => !rooms.includes(r)), [], `rooms of ${folder}/ in lint/floors.js that no longer exist`);
  }
});

test.run();
