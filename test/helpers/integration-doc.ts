// Reads docs/integration.md the way its tests check it: a sample is the fenced block after
// `<!-- sample: NAME -->`, a table the markdown table after `<!-- table: NAME -->`. The tests compare them with
// what the code produces, so the page cannot drift from the product.
import { readFileSync } from 'node:fs';

export const ROOT = new URL('../../', import.meta.url).pathname;
export const DOC_PATH = `${ROOT}docs/integration.md`;
export const EXAMPLES_DIR = `${ROOT}docs/examples/`;
export const docText = (): string => readFileSync(DOC_PATH, 'utf8');

/** Every sample of the page by name: its fence language and text. */
export function docSamples(text = docText()): Map<string, { lang: string; text: string }> {
  const out = new Map<string, { lang: string; text: string }>();
  for (const m of text.matchAll(/<!-- sample: ([\w.-]+) -->\n```(\w*)\n([\s\S]*?)\n```/g)) {
    if (out.has(m[1]!)) throw new Error(`docs/integration.md: sample ${m[1]} appears twice`);
    out.set(m[1]!, { lang: m[2]!, text: m[3]! });
  }
  return out;
}

export function docSample(name: string): string {
  const s = docSamples().get(name);
  if (!s) throw new Error(`docs/integration.md has no sample "${name}"`);
  return s.text;
}

/** The cells of a table's rows (header and separator left out), each trimmed. */
export function docTable(name: string, text = docText()): string[][] {
  const at = text.indexOf(`<!-- table: ${name} -->\n`);
  if (at < 0) throw new Error(`docs/integration.md has no table "${name}"`);
  const lines = text.slice(at).split('\n').slice(1);
  const rows: string[][] = [];
  for (const line of lines) {
    if (!line.startsWith('|')) break;
    rows.push(line.slice(1, line.endsWith('|') ? -1 : undefined).split(/(?<!\\)\|/).map((c) => c.trim()));
  }
  return rows.slice(2);
}

/** `code` spans of a cell, in order. */
export const codeSpans = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

/** The names of the sections the contents list links to, and the headings that exist (GitHub anchors). */
export const anchorOf = (heading: string): string => heading.trim().toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-');

/** docs/examples/import.json as printed: its secrets are placeholders, which the import refuses. */
export function exampleImportAsPrinted(): Record<string, unknown[]> {
  return JSON.parse(readFileSync(`${EXAMPLES_DIR}import.json`, 'utf8')) as Record<string, unknown[]>;
}

/**
 * `text` with the example's placeholder secrets (`change-me-Admin-1`, `whsec-change-me-0123456789`, ...) made
 * real: `change-me` becomes `doc-test`. The import refuses a placeholder secret
 * (docs/decisions.md#secrets-left-at-their-example), so the suites that replay the example, and the page's
 * samples that log in with its passwords, use these values as an operator would use their own.
 */
export const withRealSecrets = (text: string): string => text.replace(/change-me/gi, 'doc-test');

/** docs/examples/import.json, whole, as the database suites import it (every integration kind in it included). */
export function exampleImport(): Record<string, unknown[]> {
  return JSON.parse(withRealSecrets(readFileSync(`${EXAMPLES_DIR}import.json`, 'utf8'))) as Record<string, unknown[]>;
}
