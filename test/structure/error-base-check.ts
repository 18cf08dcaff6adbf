// The detectors of test/structure/error-base.test.ts (docs/decisions.md#one-error-base): error classes in
// production code that do not go through FaultlineError (errors/base.ts), and a `retryable` / `transient`
// spelling of what the base calls `retriable`. Both read the sources with the TypeScript compiler API; the
// first asks its type checker for each class's chain of base types, so a class that extends a library's error
// (hono's HTTPException, a kafkajs error) or another of our classes is followed to its root.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { productionSources } from './long-functions.js';

/** Production code for this rule: every source the function-length rule reads, but the shared test support. */
export function errorBaseSources(root: string): string[] {
  return productionSources(root).filter((f) => !f.startsWith('support/') && /\.tsx?$/.test(f));
}

// One program for the service and the portal: Bundler resolution reads both `./x.js` and the portal's `./x`.
const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'], types: ['node'], jsx: ts.JsxEmit.Preserve, strict: true, noEmit: true, skipLibCheck: true,
  allowImportingTsExtensions: true,
};

const BASE = { name: 'FaultlineError', file: /\/errors\/base\.ts$/ };

/** The names and files of a base type and of its own bases, nearest first, down to the root (Error, for an error). */
function baseChain(checker: ts.TypeChecker, type: ts.Type): { name: string; file: string }[] {
  const out: { name: string; file: string }[] = [];
  const queue: ts.Type[] = [type];
  const seen = new Set<ts.Type>();
  while (queue.length) {
    const t = queue.shift()!;
    const target = (t as ts.TypeReference).target ?? t;
    if (seen.has(target)) continue;
    seen.add(target);
    const symbol = target.getSymbol();
    if (symbol) out.push({ name: symbol.getName(), file: symbol.declarations?.[0]?.getSourceFile().fileName ?? '' });
    if (target.isClassOrInterface()) queue.push(...(checker.getBaseTypes(target) ?? []));
  }
  return out;
}

/** A built-in error: Error itself, or anything the standard library or the DOM declares with Error as a base. */
const isBuiltInError = (b: { name: string; file: string }) => b.name === 'Error' && /\/typescript\/lib\/lib\.[\w.]+\.d\.ts$/.test(b.file);

/** A class declaration or expression with an `extends` clause, without reading the file's types (the cheap first pass). */
const DECLARES_SUBCLASS = /\bclass\b[^{;]*\bextends\b/;

/** `file:Class` for each class in `files` (relative to `root`) whose bases reach Error without FaultlineError. */
export function errorsOffBase(root: string, files: readonly string[]): string[] {
  // Only the files that declare a subclass are roots: the program follows their imports to every base.
  const roots = files.filter((f) => DECLARES_SUBCLASS.test(readFileSync(join(root, f), 'utf8')));
  const program = ts.createProgram(roots.map((f) => join(root, f)), OPTIONS);
  const checker = program.getTypeChecker();
  const found: string[] = [];
  for (const file of roots) {
    const source = program.getSourceFile(join(root, file));
    if (!source) throw new Error(`${file}: not in the program`);
    const visit = (node: ts.Node): void => {
      const extended = ts.isClassLike(node) ? node.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0] : undefined;
      if (extended && ts.isClassLike(node)) {
        const chain = baseChain(checker, checker.getTypeAtLocation(extended));
        const isBase = node.name?.text === BASE.name && BASE.file.test(source.fileName);
        const viaBase = chain.some((b) => b.name === BASE.name && BASE.file.test(b.file));
        if (chain.some(isBuiltInError) && !isBase && !viaBase) found.push(`${file}:${classNameOf(node)}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

function classNameOf(node: ts.ClassLikeDeclaration): string {
  if (node.name) return node.name.text;
  const parent = node.parent;
  return ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name) ? parent.name.text : '<anonymous class>';
}

/** Spellings of `retriable` that are not the base's: an identifier or property name naming them. */
const OTHER_SPELLING = /^(?:is|can|should)?_?(?:retryable|transient)$/i;

/** `file:line:name` for each identifier, property name or string key in `text` spelled `retryable`, `transient`... */
export function otherSpellings(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const name = ts.isIdentifier(node) || ts.isPrivateIdentifier(node) ? node.text
      : ts.isStringLiteral(node) && (ts.isPropertyAssignment(node.parent) || ts.isElementAccessExpression(node.parent)) ? node.text : null;
    if (name !== null && OTHER_SPELLING.test(name)) found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}:${name}`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
