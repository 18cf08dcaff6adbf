// One write endpoint (a POST, PUT, PATCH or DELETE), described once (docs/decisions.md#write-endpoints): its
// method, path, body, parameters, responses and errors. `writeRoute` registers the route from the entry (its
// method, its path, its body limit) and `writeOperations` writes its OpenAPI from the same entry, so the
// document cannot drift from the route. The sibling of ReadEndpoint (api/device-records/endpoint.ts).
import type { Env, Handler, Hono, MiddlewareHandler } from 'hono';
import { BEARER, addOperation, errorResponse, json, type Obj } from './openapi-kit.js';
import { limitBody } from './request.js';

export type WriteMethod = 'post' | 'put' | 'patch' | 'delete';

export interface WriteBody {
  /** The JSON schema of the body. */
  schema: Obj;
  /** Bytes: `limitBody` is mounted with it, and the 413 is documented from it. */
  limit: number;
  /** false: the body may be left out (an action the body only narrows). Default true. */
  required?: boolean;
  /** What a refusal calls the body (request.ts), default "The body". */
  noun?: string;
  /** The 400 the route answers for a body it refuses. */
  invalid: string;
}

export interface WriteEndpoint<P extends string = string> {
  method: WriteMethod;
  /** The Hono path (`:id`); the document writes it `{id}`. */
  path: P;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  /** Default: a person's bearer token (BEARER). */
  security?: readonly Obj[];
  /** The path parameters, as OpenAPI parameter objects. */
  parameters?: readonly Obj[];
  body?: WriteBody;
  /** Every answer but the body's 400, 413 and 415, which `body` documents. */
  responses: Record<number, Obj>;
}

/** `4096` -> "4 KiB"; a size that is not whole KiB in bytes. */
const size = (bytes: number): string => (bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`);

/** The OpenAPI operation of one entry. */
function operation(e: WriteEndpoint): Obj {
  const body = e.body;
  return {
    operationId: e.operationId,
    tags: [e.tag],
    summary: e.summary,
    ...(e.description ? { description: e.description } : {}),
    security: e.security ?? BEARER,
    ...(e.parameters ? { parameters: e.parameters } : {}),
    ...(body ? { requestBody: { required: body.required ?? true, ...json(body.schema) } } : {}),
    responses: {
      ...e.responses,
      ...(body ? {
        400: errorResponse(body.invalid),
        413: errorResponse(`${body.noun ?? 'The body'} is larger than ${size(body.limit)}.`),
        415: errorResponse(`${body.noun ?? 'The body'} is not application/json, or is sent with a Content-Encoding.`),
      } : {}),
    },
  };
}

/** The OpenAPI path items of `endpoints`, merged into `paths` beside the operations already there (a GET). */
export function writeOperations(endpoints: readonly WriteEndpoint[], paths: Record<string, Obj> = {}): Record<string, Obj> {
  for (const e of endpoints) addOperation(paths, e.path, e.method, operation(e));
  return paths;
}

/**
 * Registers `e` on `app`: its method and path, then `guards` (auth, admin), then the body limit its entry
 * declares, then `handler`. A router registers its write routes with this, never with app.post/put/delete.
 */
export function writeRoute<E extends Env, P extends string>(app: Hono<E>, e: WriteEndpoint<P>, guards: readonly MiddlewareHandler[], handler: Handler<E, P>): void {
  const limit = e.body ? [limitBody(e.body.limit, e.body.noun ? { noun: e.body.noun } : {})] : [];
  const handlers = [...guards, ...limit, handler] as Handler<E, P>[];
  app.on(e.method.toUpperCase(), [e.path], ...handlers);
}

/** An entry with its path's literal type, so a handler's `c.req.param('id')` is a string. */
export const writeEndpoint = <const P extends string>(e: WriteEndpoint<P>): WriteEndpoint<P> => e;
