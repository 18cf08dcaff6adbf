// The floors of the house (docs/architecture.md#floors): each top-level folder stands on a floor and may import
// only folders on lower floors (and itself). Enforced by the `floors/downward-only` lint rule below, which
// resolves every relative import to its folder, so a new arrow back up fails `npm test` (test/structure/floors.test.ts
// shows it failing on a fixture). A new folder must be given a floor here, or lint says so.
// Inside a folder the same holds between its rooms (its sub-folders and its files) where INNER_FLOORS lists
// them: dnp3/ and iec104/, the two folders whose rooms are layers of a protocol stack. Inside every other folder
// of production code, at every depth, no import closes a circle between its rooms (circleProblem): the rooms
// then stand in an order no one has to write down (docs/architecture.md#floors).
import { dirname, normalize, relative, resolve } from 'node:path';
import { importsOf, NOT_PRODUCTION, productionFiles, ROOT } from './imports.js';

/** Lowest first. Folders on one floor do not import each other. */
export const FLOORS = [
  // errors/: the one error base (code, retriable, cause) every capability's errors extend, below everything.
  ['errors'],
  // reliability/: the pure rules of reliability analytics (issue 43), no I/O, beside domain/ (neither imports the other).
  ['domain', 'infra', 'reliability'],
  // fleet/: the pure rules of fleet health (issue 44): the day rollup's folds and their SQL, on domain/'s check-in shape.
  ['config', 'schemas', 'fleet'],
  ['db', 'plumbing'],
  ['secrets', 'integrations', 'outbox'],
  ['storage', 'alarms', 'multispeak', 'indicator-audit'],
  ['stages', 'incidents', 'reference-data'],
  // fleet-health/: the fleet worker and its steps (issue 44): I/O over fleet/'s pure rules, the rollup and the
  // incidents (a de-energised section opens an incident). Pure rules stay in fleet/ (floor 1), which imports no db/.
  ['simulator', 'fleet-health'],
  ['commissioning'],
  // The protocol-neutral point model (slots, banks, device and power line points) both outstations encode.
  ['points'],
  ['dnp3', 'iec104'],
  ['api'],
  ['cli'],
  // What tests and benches share: test databases, Kafka topics, fixtures, child processes.
  ['support'],
  // The release: compiling the service into dist/ for `npm pack` (release/build.ts).
  ['bin', 'bench', 'test', 'release'],
];

/**
 * The floors inside a folder, lowest first: each room (a sub-folder, or a file named with its .ts) imports only
 * rooms on lower floors and its own files. A room not listed is an error, so a new one is placed.
 */
export const INNER_FLOORS = {
  dnp3: [
    ['errors.ts', 'identity.ts', 'metrics.ts', 'transport'],
    ['link', 'objects'],
    ['app'],
    // The reasons the outstation discards or refuses, with the sentence a SCADA engineer reads.
    ['diagnostics'],
    ['outstation'],
    ['data', 'event-timing.ts', 'server.ts'],
    ['service.ts', 'profile'],
  ],
  iec104: [
    ['errors.ts', 'metrics.ts', 'diagnostics'],
    ['apci'],
    ['asdu'],
    // The station takes handlers (as lib60870 takes callbacks); data/ builds them from the point model.
    ['station'],
    ['data'],
    ['identity.ts', 'outstation.ts'],
    ['organisation-map.ts', 'session.ts', 'event-timing.ts'],
    ['server.ts'],
    ['service.ts', 'profile'],
  ],
};

/** The browser portal stands apart: it may read the pure rules and the error base, and nothing else. */
const APART = { portal: ['domain', 'errors'] };

const floorOf = new Map(FLOORS.flatMap((folders, floor) => folders.map((f) => [f, floor])));

/** Why `from` (a top-level folder) may not import `to`, or null when it may. */
export function upwardProblem(from, to) {
  if (from === to) return null;
  if (from in APART) return APART[from].includes(to) ? null : `${from}/ may import only ${APART[from].join(', ')}/`;
  const a = floorOf.get(from);
  const b = floorOf.get(to);
  if (a === undefined) return `${from}/ has no floor: give it one in lint/floors.js`;
  if (b === undefined) return null; // a file at the root, node_modules, or a folder that is not code
  if (b < a) return null;
  return b === a
    ? `${from}/ and ${to}/ stand on one floor and do not import each other (lint/floors.js)`
    : `${from}/ (floor ${a}) must not import ${to}/ (floor ${b}): imports run downward (docs/architecture.md#floors)`;
}

/** Why room `from` of `folder` may not import room `to` of the same folder, or null when it may. */
export function innerProblem(folder, from, to) {
  const floors = INNER_FLOORS[folder];
  if (!floors || from === to) return null;
  const floorOf = (room) => floors.findIndex((rooms) => rooms.includes(room));
  const a = floorOf(from), b = floorOf(to);
  if (a < 0) return `${folder}/${from} has no floor inside ${folder}/: give it one in lint/floors.js (INNER_FLOORS)`;
  if (b < 0) return `${folder}/${to} has no floor inside ${folder}/: give it one in lint/floors.js (INNER_FLOORS)`;
  if (b < a) return null;
  return b === a
    ? `${folder}/${from} and ${folder}/${to} stand on one floor inside ${folder}/ and do not import each other (lint/floors.js)`
    : `${folder}/${from} (floor ${a} inside ${folder}/) must not import ${folder}/${to} (floor ${b}): imports run downward inside a folder too (docs/architecture.md#floors)`;
}

/**
 * Rooms that still stand in a circle, each with the work that takes it out; the circle rule skips their arrows.
 * test/structure/floors.test.ts fails once an entry is no longer needed, so it is deleted then.
 */
export const PENDING_CIRCLES = {};

const graphs = new Map();

/**
 * The arrows between the rooms of `dir` (a folder path from the root), read from the production files on disk;
 * none to or from the rooms `skipped`.
 */
export function roomGraph(dir, skipped = PENDING_CIRCLES[dir] ?? []) {
  const key = `${dir}\u0000${skipped.join(',')}`;
  if (!graphs.has(key)) {
    const graph = new Map();
    for (const file of productionFiles().filter((f) => f.startsWith(`${dir}/`))) {
      for (const target of importsOf(file)) {
        if (!target.startsWith(`${dir}/`)) continue;
        const a = file.slice(dir.length + 1).split('/')[0], b = target.slice(dir.length + 1).split('/')[0];
        if (a === b || skipped.includes(a) || skipped.includes(b)) continue;
        if (!graph.has(a)) graph.set(a, new Set());
        graph.get(a).add(b);
      }
    }
    graphs.set(key, graph);
  }
  return graphs.get(key);
}

/** The rooms from `from` to `to` along the arrows of `graph`, or null when `to` cannot be reached. */
function pathBetween(graph, from, to, seen = new Set()) {
  if (from === to) return [to];
  if (seen.has(from)) return null;
  seen.add(from);
  for (const next of graph.get(from) ?? []) {
    const rest = pathBetween(graph, next, to, seen);
    if (rest) return [from, ...rest];
  }
  return null;
}

/**
 * Why an import from room `from` to room `to` of folder `dir` closes a circle (room `to` already reaches room
 * `from`), or null. `graph`: the folder's arrows (roomGraph), given by tests.
 */
export function circleProblem(dir, from, to, graph = roomGraph(dir), pending = PENDING_CIRCLES[dir] ?? []) {
  if (from === to || pending.some((r) => r === from || r === to)) return null;
  const back = pathBetween(graph, to, from);
  return back
    ? `${dir}/${from} must not import ${dir}/${to}, which imports it back (${back.join(' -> ')}): no circle between the rooms of a folder (docs/architecture.md#floors)`
    : null;
}

/** The folder both paths are in, deepest, and the room of each inside it; null when one is inside the other's room. */
function commonFolder(a, b) {
  const pa = relative(ROOT, a).split('/'), pb = relative(ROOT, b).split('/');
  let i = 0;
  while (i < pa.length - 1 && i < pb.length - 1 && pa[i] === pb[i]) i++;
  if (i === 0) return null;
  return { dir: pa.slice(0, i).join('/'), from: pa[i].replace(/\.js$/, '.ts'), to: pb[i].replace(/\.js$/, '.ts') };
}

/** The room of a path inside its top-level folder: the sub-folder it is in, or the file itself (`x.ts`). */
const roomOf = (path) => {
  const parts = relative(ROOT, path).split('/');
  return parts.length < 2 ? null : parts[1].replace(/\.js$/, '.ts');
};

const topFolder = (path) => {
  const rel = relative(ROOT, path);
  return rel.startsWith('..') || !rel.includes('/') ? null : rel.split('/')[0];
};

/** An import inside one top-level folder: the listed floors of dnp3/ and iec104/, no circle everywhere else. */
function insideProblem(folder, file, target) {
  if (INNER_FLOORS[folder]) {
    const listed = innerProblem(folder, roomOf(file), roomOf(target));
    if (listed) return listed;
  }
  const common = commonFolder(file, target);
  if (!common || NOT_PRODUCTION.has(folder) || (INNER_FLOORS[folder] && common.dir === folder)) return null;
  return circleProblem(common.dir, common.from, common.to);
}

export const floorsPlugin = {
  rules: {
    'downward-only': {
      meta: { type: 'problem', schema: [], docs: { description: 'imports run downward between the floors of lint/floors.js and between the rooms of a folder it lists; no circle between the rooms of any other folder' } },
      create(context) {
        const from = topFolder(context.filename);
        const check = (node) => {
          const spec = node.source?.value;
          if (!from || typeof spec !== 'string' || !spec.startsWith('.')) return;
          const target = normalize(resolve(dirname(context.filename), spec));
          const to = topFolder(target);
          if (!to) return;
          const problem = from === to ? insideProblem(from, context.filename, target) : upwardProblem(from, to);
          if (problem) context.report({ node: node.source, message: problem });
        };
        return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
      },
    },
  },
};
