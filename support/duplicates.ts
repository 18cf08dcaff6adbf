// The duplicate finder test/structure/duplicates.test.ts runs (docs/decisions.md#duplicates-found-by-a-test): the
// places where two files share a run of six or more lines of the same code. A line is the TypeScript tokens on one
// source line (the compiler's scanner: comments and white space never count, names and values do); lines that are
// only punctuation (`});`) or an import are passed over, as a copy-paste detector does. Written here rather than
// taken from jscpd: jscpd 4 brings 122 packages (an HTML reporter, a template engine) for this one check, and
// jscpd 5 is a platform binary the registry here does not serve.
import ts from 'typescript';

/** How many consecutive lines make a duplicate. */
export const MIN_LINES = 6;

interface Line { text: string; line: number }

/** `exact`: the same tokens; `shape`: the same tokens but for names, strings and numbers (each read as one placeholder). */
export type Likeness = 'exact' | 'shape';

const PLACEHOLDERS: ReadonlyMap<ts.SyntaxKind, string> = new Map([
  [ts.SyntaxKind.Identifier, 'N'], [ts.SyntaxKind.PrivateIdentifier, 'N'], [ts.SyntaxKind.StringLiteral, 'S'],
  [ts.SyntaxKind.NoSubstitutionTemplateLiteral, 'S'], [ts.SyntaxKind.NumericLiteral, '0'], [ts.SyntaxKind.BigIntLiteral, '0'],
]);

/** The lines of a file that count, each with its 1-based line number. */
export function significantLines(source: string, likeness: Likeness = 'exact'): Line[] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, source);
  const byLine = new Map<number, string[]>();
  const starts = lineStarts(source);
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    const line = lineOf(starts, scanner.getTokenStart());
    const tokens = byLine.get(line) ?? [];
    tokens.push((likeness === 'shape' ? PLACEHOLDERS.get(kind) : undefined) ?? scanner.getTokenText());
    byLine.set(line, tokens);
  }
  // A line of punctuation only (`});`, or `N ,` in shape) says nothing of its own; an import repeats by nature.
  return [...byLine].filter(([, tokens]) => tokens.some((t) => /\w/.test(t) && t !== 'N' && t !== 'S' && t !== '0') && tokens[0] !== 'import')
    .map(([line, tokens]) => ({ text: tokens.join(' '), line: line + 1 }));
}

function lineStarts(source: string): number[] {
  const starts = [0];
  for (let i = source.indexOf('\n'); i >= 0; i = source.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

function lineOf(starts: readonly number[], pos: number): number {
  let lo = 0, hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= pos) lo = mid; else hi = mid - 1;
  }
  return lo;
}

/** A run of lines two files share: `a.ts:10-24 ~ b.ts:40-54` (first and last line of each side). */
export interface Duplicate { a: string; aLines: [number, number]; b: string; bLines: [number, number] }

export const describeDuplicate = (d: Duplicate): string => `${d.a}:${d.aLines[0]}-${d.aLines[1]} ~ ${d.b}:${d.bLines[0]}-${d.bLines[1]}`;

/**
 * Every run of MIN_LINES or more lines shared by two different files where `paired(a, b)` says the two are to be
 * compared; the longest run per place, each pair once (a before b in `files`' order).
 * @example findDuplicates(new Map([['x.ts', text], ['y.ts', text]]), () => true, { likeness: 'shape' })
 */
export function findDuplicates(files: ReadonlyMap<string, string>, paired: (a: string, b: string) => boolean, { likeness = 'exact', minLines = MIN_LINES }: { likeness?: Likeness; minLines?: number } = {}): Duplicate[] {
  const lines = new Map([...files].map(([file, text]) => [file, significantLines(text, likeness)]));
  const names = [...files.keys()];
  const out: Duplicate[] = [];
  for (let i = 0; i < names.length; i++) {
    for (let j = i + 1; j < names.length; j++) {
      if (!paired(names[i]!, names[j]!)) continue;
      out.push(...sharedRuns(names[i]!, lines.get(names[i]!)!, names[j]!, lines.get(names[j]!)!, minLines));
    }
  }
  return out;
}

/** The maximal runs of equal lines two line lists share, MIN_LINES long at least (a longest-common-run table, row by row). */
function sharedRuns(a: string, la: readonly Line[], b: string, lb: readonly Line[], minLines: number): Duplicate[] {
  const out: Duplicate[] = [];
  let previous = new Uint32Array(lb.length + 1);
  for (let x = 1; x <= la.length; x++) {
    const row = new Uint32Array(lb.length + 1);
    for (let y = 1; y <= lb.length; y++) {
      if (la[x - 1]!.text !== lb[y - 1]!.text) continue;
      row[y] = previous[y - 1]! + 1;
    }
    // A run ends where the next lines differ (or a file ends): report it there, once.
    for (let y = 1; y <= lb.length; y++) {
      const n = row[y]!;
      const continues = x < la.length && y < lb.length && la[x]!.text === lb[y]!.text;
      if (n >= minLines && !continues) out.push({ a, aLines: [la[x - n]!.line, la[x - 1]!.line], b, bLines: [lb[y - n]!.line, lb[y - 1]!.line] });
    }
    previous = row;
  }
  return out;
}
