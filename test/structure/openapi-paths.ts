// What test/structure/openapi-paths.test.ts judges, as functions its fixtures can be run through: where an
// OpenAPI operation is written by hand, and which registered routes a document or the write tables leave out.
import { codeOf } from './api-routers.js';

/** An OpenAPI operation object keyed by a mutating method, written by hand: `post: {`, `delete: {`. */
const WRITE_OPERATION = /\b(?:post|put|patch|delete)\s*:\s*\{/g;
/** A read operation written by hand: `get: {`. */
const READ_OPERATION = /\bget\s*:\s*\{/g;
/** A path item written by hand: an object keyed by a path, `'/api/x': {`, or by a path constant, `[X_PATH]: {`. */
const PATH_ITEM = /(?:['"`]\/[^'"`\n]*['"`]|\[\s*[\w.]*PATH\w*[^\]\n]*\])\s*:\s*\{/g;

/** The hand-written operations of mutating methods in a file's code (empty: it has none). */
export const handWrittenWrites = (text: string): string[] => [...codeOf(text).matchAll(WRITE_OPERATION)].map((m) => m[0]);

/** The hand-written read operations in a file's code. */
export const handWrittenReads = (text: string): string[] => [...codeOf(text).matchAll(READ_OPERATION)].map((m) => m[0]);

/** The path items written by hand in a file's code. */
export const handWrittenPathItems = (text: string): string[] => [...codeOf(text).matchAll(PATH_ITEM)].map((m) => m[0]);

/** Everything of an OpenAPI `paths` object a file writes by hand: path items and operations of any method. */
export const handWrittenPaths = (text: string): string[] => [...handWrittenPathItems(text), ...handWrittenReads(text), ...handWrittenWrites(text)];

export interface Route { method: string; path: string }

/** `POST /api/x/:id` -> `post /api/x/{id}`, the key the document and the tables are compared by. */
export const routeKey = (r: Route): string => `${r.method.toLowerCase()} ${r.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`;

/** Routes (method and path) of `routes` the document's paths do not describe. */
export function undocumented(routes: readonly Route[], paths: Record<string, Record<string, unknown>>): string[] {
  const documented = new Set(Object.entries(paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m} ${path}`)));
  return [...new Set(routes.map(routeKey))].filter((k) => !documented.has(k));
}

/** Routes of `routes` with one of `methods` that no entry of `table` declares. */
function outsideTable(routes: readonly Route[], table: readonly Route[], methods: readonly string[]): string[] {
  const declared = new Set(table.map(routeKey));
  return [...new Set(routes.filter((r) => methods.includes(r.method)).map(routeKey))].filter((k) => !declared.has(k));
}

/** Mutating routes (POST, PUT, PATCH, DELETE) of `routes` that no entry of `table` declares. */
export const writesOutsideTables = (routes: readonly Route[], table: readonly Route[]): string[] => outsideTable(routes, table, ['POST', 'PUT', 'PATCH', 'DELETE']);

/** GET routes of `routes` that no entry of `table` declares. */
export const readsOutsideTables = (routes: readonly Route[], table: readonly Route[]): string[] => outsideTable(routes, table, ['GET']);
