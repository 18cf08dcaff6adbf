// The detector behind function-length.test.ts: every function, method, accessor, constructor and arrow in a
// source file, with the lines it spans (from its first token, leading comments excluded, to its last line).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

export interface FunctionSpan { name: string; startLine: number; lines: number }

/** Every function-like node of `text` (parsed as `fileName`, so .tsx parses JSX), nested ones included. */
export function functionSpans(fileName: string, text: string): FunctionSpan[] {
  const kind = /\.[jt]sx$/.test(fileName) ? ts.ScriptKind.TSX : /\.[cm]?js$/.test(fileName) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const spans: FunctionSpan[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      spans.push({ name: nameOf(node, source), startLine: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return spans;
}

/** The functions of `text` longer than `limit` lines. */
export function longFunctions(fileName: string, text: string, limit: number): FunctionSpan[] {
  return functionSpans(fileName, text).filter((f) => f.lines > limit);
}

// A name a reader can find: the declared name, else what the function is assigned to or passed as
// (`const x = () =>`, `{ x: () => }`, `x = function`), else `<anonymous>` with its line.
function nameOf(node: ts.SignatureDeclaration, source: ts.SourceFile): string {
  const own = node.name;
  if (own && !ts.isComputedPropertyName(own)) return own.getText(source);
  if (ts.isConstructorDeclaration(node)) return `${className(node)}constructor`;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
    return parent.name.getText(source);
  }
  if (ts.isBinaryExpression(parent) && parent.right === node) return parent.left.getText(source);
  if (ts.isCallExpression(parent)) return `<callback of ${parent.expression.getText(source).slice(0, 60)}>`;
  return '<anonymous>';
}

function className(node: ts.ConstructorDeclaration): string {
  const owner = node.parent;
  return ts.isClassLike(owner) && owner.name ? `${owner.name.text}.` : '';
}

// Everything outside these folders is production source (portal/src included, portal/dist is built output).
const NOT_PRODUCTION = new Set(['test', 'bench', 'infra', 'lint', 'node_modules', 'dist']);
const SOURCE = /\.(?:[cm]?[jt]s|[jt]sx)$/;

/** Every production source file under `root`, relative to it, sorted. */
export function productionSources(root: string, dir = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir)).sort()) {
    if (name.startsWith('.') || NOT_PRODUCTION.has(name)) continue;
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) out.push(...productionSources(root, path));
    else if (SOURCE.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** `file:function:lines` for each production function over `limit` lines whose `file:function` is not allowed. */
export function overLimit(root: string, limit: number, allowed: ReadonlySet<string> = new Set()): string[] {
  const found: string[] = [];
  for (const file of productionSources(root)) {
    for (const f of longFunctions(file, readFileSync(join(root, file), 'utf8'), limit)) {
      if (!allowed.has(`${file}:${f.name}`)) found.push(`${file}:${f.name}:${f.lines} (line ${f.startLine})`);
    }
  }
  return found;
}
