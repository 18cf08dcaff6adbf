// The example deployment of docs/operations.md: its environment files (docs/examples/deploy/*.env, systemd
// EnvironmentFile syntax) and its process table, read the way systemd and an operator read them.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../../', import.meta.url).pathname;
export const DEPLOY_DIR = join(root, 'docs/examples/deploy');
export const OPERATIONS_MD = join(root, 'docs/operations.md');
/** The files every process reads before its own (the unit's EnvironmentFile order). */
export const SHARED_FILES = ['common.env', 'secrets.env'] as const;

/** KEY=value lines; `#` comments and blank lines skipped; the value is the rest of the line, unquoted. */
export function readEnvFile(file: string): Map<string, string> {
  const vars = new Map<string, string>();
  readFileSync(join(DEPLOY_DIR, file), 'utf8').split('\n').forEach((line, i) => {
    const text = line.trim();
    if (!text || text.startsWith('#')) return;
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(text);
    if (!m) throw new Error(`${file}:${i + 1}: not KEY=value: ${text}`);
    if (vars.has(m[1]!)) throw new Error(`${file}:${i + 1}: ${m[1]} set twice`);
    vars.set(m[1]!, m[2]!);
  });
  return vars;
}

export const envFiles = (): string[] => readdirSync(DEPLOY_DIR).filter((f) => f.endsWith('.env')).sort();

export interface ProcessRow { kind: string; only: string; file: string; variables: string[] }

/** The first table under "## Processes" of docs/operations.md. */
export function processTable(): ProcessRow[] {
  const section = markdownSection('Processes');
  const rows = section.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| process |'));
  // The process table is the one with six columns (the other table of the section has two).
  return rows.map((l) => l.split('|').slice(1, -1).map((c) => c.trim())).filter((cells) => cells.length === 6).map((cells) => {
    const code = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    return { kind: cells[0]!, only: code(cells[1]!)[0]!, file: code(cells[2]!)[0]!, variables: code(cells[3]!) };
  });
}

/** The component table under "Components that no production process runs". */
export function componentsNotRun(): string[] {
  const section = markdownSection('Processes');
  const after = section.slice(section.indexOf('Components that no production process runs'));
  const table = after.split('\n\n')[1] ?? '';
  return table.split('\n').filter((l) => l.startsWith('| `')).map((l) => /`([^`]+)`/.exec(l)![1]!);
}

export function markdownSection(heading: string): string {
  const text = readFileSync(OPERATIONS_MD, 'utf8');
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`docs/operations.md has no "## ${heading}"`);
  const end = text.indexOf('\n## ', start + 4);
  return text.slice(start, end < 0 ? undefined : end);
}

/** A process kind's environment as its unit gives it: common.env, secrets.env, then <kind>.env (later wins). */
export function processEnvironment(file: string): Map<string, string> {
  const env = new Map<string, string>();
  for (const f of [...SHARED_FILES, file]) for (const [k, v] of readEnvFile(f)) env.set(k, v);
  return env;
}
