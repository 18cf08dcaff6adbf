// Configuration is read once, in config/ (docs/decisions.md#configuration-read-once): no other production file
// reads the environment or takes one passed down. Every production file is enumerated and parsed with the
// TypeScript compiler, so a read added anywhere later fails here with its file:line, whatever its spelling.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const test = suite('environment read in config/ alone');
const root = new URL('../..', import.meta.url).pathname;

/**
 * Production: every .ts, .tsx, .js and .mjs file of the repository except tests and what serves them (test/,
 * bench/, support/), the servers' scripts (infra/), the lint rules (lint/, eslint.config.js), the portal's
 * build scripts (portal/build.ts, portal/vite.config.ts), and what git and npm hold (node_modules, dot
 * folders, dist). config/ is production too; it is the one place allowed to read.
 */
const NOT_PRODUCTION = new Set(['test', 'bench', 'support', 'infra', 'lint', 'node_modules', 'dist', 'eslint.config.js', 'portal/build.ts', 'portal/vite.config.ts']);
const ALLOWED = 'config/';

function productionFiles(dir = root): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const rel = relative(root, path);
    if (name.startsWith('.') || NOT_PRODUCTION.has(name) || NOT_PRODUCTION.has(rel)) continue;
    if (statSync(path).isDirectory()) out.push(...productionFiles(path));
    else if (/\.(ts|tsx|js|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

interface EnvironmentRead { line: number; text: string; why: string }

const PROCESS_MODULES = new Set(['process', 'node:process']);

/** Every place in `source` that reads the environment or takes one as a value. */
function environmentReads(fileName: string, source: string): EnvironmentRead[] {
  const kind = fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : fileName.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, kind);
  const found: EnvironmentRead[] = [];
  // Names the process object goes by here: the global, and `import process from 'node:process'` or `* as p`.
  const processNames = new Set(['process']);
  const report = (node: ts.Node, why: string) => {
    const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
    found.push({ line: line + 1, text: node.getText(file).split('\n')[0]!.slice(0, 80), why });
  };
  const isProcess = (e: ts.Expression): boolean => {
    if (ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e) || ts.isAsExpression(e)) return isProcess(e.expression);
    if (ts.isIdentifier(e)) return processNames.has(e.text);
    if (ts.isPropertyAccessExpression(e)) return e.name.text === 'process' && ts.isIdentifier(e.expression) && e.expression.text === 'globalThis';
    // require('node:process')
    return ts.isCallExpression(e) && ts.isIdentifier(e.expression) && e.expression.text === 'require'
      && e.arguments.length === 1 && ts.isStringLiteral(e.arguments[0]!) && PROCESS_MODULES.has(e.arguments[0].text);
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && PROCESS_MODULES.has(node.moduleSpecifier.text)) {
      const clause = node.importClause;
      if (clause?.name) processNames.add(clause.name.text);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) processNames.add(bindings.name.text);
      if (bindings && ts.isNamedImports(bindings)) {
        for (const el of bindings.elements) if ((el.propertyName ?? el.name).text === 'env') report(el, `imports env from '${node.moduleSpecifier.text}'`);
      }
    } else if (ts.isPropertyAccessExpression(node) && node.name.text === 'env' && isProcess(node.expression)) {
      report(node, 'reads process.env');
    } else if (ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression) && node.argumentExpression.text === 'env' && isProcess(node.expression)) {
      report(node, 'reads process[\'env\']');
    } else if (ts.isVariableDeclaration(node) && ts.isObjectBindingPattern(node.name) && node.initializer && isProcess(node.initializer)) {
      for (const el of node.name.elements) {
        const key = el.propertyName ?? el.name;
        if (ts.isIdentifier(key) && key.text === 'env') report(el, 'destructures env from process');
      }
    } else if (ts.isTypeReferenceNode(node) && node.typeName.getText(file).replace(/\s/g, '') === 'NodeJS.ProcessEnv') {
      report(node, 'takes an environment passed down (pass the typed settings instead)');
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

test('the detector finds every spelling of a read, and not a mention in a comment or a string', () => {
  const fixture = [
    "const a = process.env.PORT;",                                    // 1
    "const b = process.env['DATABASE_URL'];",                         // 2
    "const { HOST } = process.env;",                                  // 3
    "const c = process['env'].X;",                                    // 4
    "const { env } = process;",                                       // 5
    "import { env as e } from 'node:process';",                       // 6
    "import p from 'process';",                                       // 7
    "const d = p.env.Y;",                                             // 8
    "const f = globalThis.process.env.Z;",                            // 9
    "function g(x: NodeJS.ProcessEnv = {}) { return x; }",            // 10
    "const h = (process as NodeJS.Process).env;",                     // 11
    "// process.env.COMMENT is not a read",                           // 12
    "const s = 'process.env.STRING is not one either';",              // 13
    "const settings = { env: 'production' }; const i = settings.env;", // 14
  ].join('\n');
  const lines = environmentReads('fixture.ts', fixture).map((r) => r.line);
  assert.equal([...new Set(lines)].sort((x, y) => x - y), [1, 2, 3, 4, 5, 6, 8, 9, 10, 11]);
  assert.equal(environmentReads('fixture.tsx', 'export const A = () => <div>{process.env.X}</div>;').map((r) => r.line), [1]);
});

test('the enumeration covers the production folders and leaves the tests out', () => {
  const files = productionFiles();
  for (const f of ['cli/start.ts', 'config/settings.ts', 'bin/faultline.js', 'plumbing/retry.ts', 'portal/src/main.tsx', 'iec104/server.ts']) assert.ok(files.includes(f), `${f} enumerated`);
  for (const f of files) assert.not.match(f, /^(test|bench|support|infra|lint|node_modules)\//);
  assert.not.ok(files.includes('portal/build.ts'), 'the portal build script is not production');
  // The scan sees the reads that config/ does make, so it reads the real files.
  assert.ok(environmentReads('config/settings.ts', readFileSync(join(root, 'config/settings.ts'), 'utf8')).length > 0);
});

test('no production file outside config/ reads process.env (file:line)', () => {
  const offences: string[] = [];
  for (const f of productionFiles()) {
    if (f.startsWith(ALLOWED)) continue;
    for (const r of environmentReads(f, readFileSync(join(root, f), 'utf8'))) offences.push(`${f}:${r.line}: ${r.why}: ${r.text}`);
  }
  assert.equal(offences, [], 'read the setting in config/settings.ts and pass it down');
});

test.run();
