// What test/structure/api-routers.test.ts judges, as functions its fixtures can be run through: which files of
// api/ are routers, whether a text holds SQL, and which files a module imports.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

/** Code without its comments (whole-line `//` and JSDoc/block lines), so an @example route or a comment naming SQL is not counted. */
export function codeOf(text: string): string {
  return text.split('\n').filter((line) => !/^\s*(?:\/\/|\/\*|\*)/.test(line)).join('\n');
}

/**
 * A router registers routes: `app.get(PATH, ...)`, `app.post('/api/...', ...)`, `app.put(`${PATH}/:id`, ...)`,
 * or an endpoint entry: `writeRoute(app, ENTRY, ...)` (api/write-endpoint.ts), `getRoute(app, ENTRY, ...)` (api/read-route.ts).
 * The definition of docs/decisions.md#a-request-kit-and-write-endpoints.
 */
const ROUTE = /\b\w+\.(?:get|post|put|patch|delete|all|on)\(\s*(?:[A-Z_][A-Z0-9_]*\b|['"`]\/|`\$\{)|\b(?:write|get)Route\(\s*\w+\s*,/;

export const isRouter = (text: string): boolean => ROUTE.test(codeOf(text));

/** SQL: a string or template literal (tagged or not) that begins with a statement's first word (in SQL's case, not a sentence's). */
const SQL = /(?:\bsql\s*`|['"`]\s*(?:select|insert|update|delete|with|SELECT|INSERT|UPDATE|DELETE|WITH)\s)/g;

/** The SQL openings in a text's code (empty when it holds none). */
export const sqlIn = (text: string): string[] => [...codeOf(text).matchAll(SQL)].map((m) => m[0]);

/** The files a module imports, as paths from the repository root (relative imports only). */
export function importsOf(file: string, text: string): string[] {
  return [...text.matchAll(/(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]/g)].map((m) => normalize(join(dirname(file), m[1]!.replace(/\.js$/, '.ts'))));
}

/** Every .ts file under `dir` (repository-relative). */
export function tsFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts')).map((f) => relative(root, join(root, dir, f))).sort();
}

export const read = (root: string, file: string): string => readFileSync(join(root, file), 'utf8');
