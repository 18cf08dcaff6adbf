// The floors of the house (docs/architecture.md#floors): each top-level folder stands on a floor and may import
// only folders on lower floors (and itself). Enforced by the `floors/downward-only` lint rule below, which
// resolves every relative import to its folder, so a new arrow back up fails `npm test` (test/structure/floors.test.ts
// shows it failing on a fixture). A new folder must be given a floor here, or lint says so.
import { dirname, normalize, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Lowest first. Folders on one floor do not import each other. */
export const FLOORS = [
  ['domain', 'infra'],
  ['config', 'schemas'],
  ['db', 'plumbing'],
  ['secrets', 'integrations', 'outbox'],
  ['storage', 'alarms', 'multispeak'],
  ['stages', 'incidents', 'reference-data'],
  ['simulator'],
  ['commissioning'],
  // The protocol-neutral point model (slots, banks, device and power line points) both outstations encode.
  ['points'],
  ['dnp3', 'iec104'],
  ['api'],
  ['cli'],
  // What tests and benches share: test databases, Kafka topics, fixtures, child processes.
  ['support'],
  ['bin', 'bench', 'test'],
];

/** The browser portal stands apart: it may read the pure rules and nothing else. */
const APART = { portal: ['domain'] };

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

const topFolder = (path) => {
  const rel = relative(ROOT, path);
  return rel.startsWith('..') || !rel.includes('/') ? null : rel.split('/')[0];
};

export const floorsPlugin = {
  rules: {
    'downward-only': {
      meta: { type: 'problem', schema: [], docs: { description: 'imports run downward between the floors of lint/floors.js' } },
      create(context) {
        const from = topFolder(context.filename);
        const check = (node) => {
          const spec = node.source?.value;
          if (!from || typeof spec !== 'string' || !spec.startsWith('.')) return;
          const to = topFolder(normalize(resolve(dirname(context.filename), spec)));
          if (!to) return;
          const problem = upwardProblem(from, to);
          if (problem) context.report({ node: node.source, message: problem });
        };
        return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
      },
    },
  },
};
