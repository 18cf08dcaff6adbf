// One read route that is not a page of device records (those are ReadEndpoint entries,
// api/device-records/endpoint.ts): a JSON object, a CSV or Markdown answer, a binary stream, health, metrics,
// the document itself. Described once (docs/decisions.md#read-endpoint-tables): `getRoute` registers the GET
// from the entry and `readRouteOperations` writes its OpenAPI from the same entry. The sibling of
// WriteEndpoint (write-endpoint.ts).
import type { Env, Handler, Hono, MiddlewareHandler } from 'hono';
import { BEARER, addOperation, type Obj } from './openapi-kit.js';

export interface ReadRoute<P extends string = string> {
  /** The Hono path (`:id`); the document writes it `{id}`. */
  path: P;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  /** Default: a person's bearer token (BEARER); `null`: no credential (health, metrics, the document). */
  security?: readonly Obj[] | null;
  /** The path and query parameters, as OpenAPI parameter objects. */
  parameters?: readonly Obj[];
  responses: Record<number, Obj>;
}

/** The OpenAPI operation of one entry. */
function operation(e: ReadRoute): Obj {
  const security = e.security === undefined ? BEARER : e.security;
  return {
    operationId: e.operationId,
    tags: [e.tag],
    summary: e.summary,
    ...(e.description ? { description: e.description } : {}),
    ...(security ? { security } : {}),
    ...(e.parameters ? { parameters: e.parameters } : {}),
    responses: e.responses,
  };
}

/** The OpenAPI path items of `routes`, added to `paths`. */
export function readRouteOperations(routes: readonly ReadRoute[], paths: Record<string, Obj> = {}): Record<string, Obj> {
  for (const e of routes) addOperation(paths, e.path, 'get', operation(e));
  return paths;
}

/**
 * Registers `e` on `app`: GET on its path, then `guards` (integration output, auth, admin), then `handler`. A
 * router registers its read routes with this, never with app.get.
 */
export function getRoute<E extends Env, P extends string>(app: Hono<E>, e: ReadRoute<P>, guards: readonly MiddlewareHandler[], handler: Handler<E, P>): void {
  app.on('GET', [e.path], ...([...guards, handler] as Handler<E, P>[]));
}

/** An entry with its path's literal type, so a handler's `c.req.param('id')` is a string. */
export const readRoute = <const P extends string>(e: ReadRoute<P>): ReadRoute<P> => e;
