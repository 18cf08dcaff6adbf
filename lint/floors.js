// The floors of the house (docs/architecture.md#floors): each top-level folder stands on a floor and may import
// only folders on lower floors (and itself). Enforced by the `floors/downward-only` lint rule below, which
// resolves every relative import to its folder, so a new arrow back up fails `npm test` (test/structure/floors.test.ts
// shows it failing on a fixture). A new folder must be given a floor here, or lint says so.
// Inside a folder the same holds between its rooms (its sub-folders and its files) where INNER_FLOORS lists
// them: dnp3/ and iec104/, the two folders whose rooms are layers of a protocol stack.
import { dirname, normalize, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

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

/** The room of a path inside its top-level folder: the sub-folder it is in, or the file itself (`x.ts`). */
const roomOf = (path) => {
  const parts = relative(ROOT, path).split('/');
  return parts.length < 2 ? null : parts[1].replace(/\.js$/, '.ts');
};

const topFolder = (path) => {
  const rel = relative(ROOT, path);
  return rel.startsWith('..') || !rel.includes('/') ? null : rel.split('/')[0];
};

export const floorsPlugin = {
  rules: {
    'downward-only': {
      meta: { type: 'problem', schema: [], docs: { description: 'imports run downward between the floors of lint/floors.js, and between the rooms of a folder it lists' } },
      create(context) {
        const from = topFolder(context.filename);
        const check = (node) => {
          const spec = node.source?.value;
          if (!from || typeof spec !== 'string' || !spec.startsWith('.')) return;
          const target = normalize(resolve(dirname(context.filename), spec));
          const to = topFolder(target);
          if (!to) return;
          const problem = from === to ? innerProblem(from, roomOf(context.filename), roomOf(target)) : upwardProblem(from, to);
          if (problem) context.report({ node: node.source, message: problem });
        };
        return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
      },
    },
  },
};
