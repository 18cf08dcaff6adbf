// The OpenAPI helpers every description is written with (docs/decisions.md#a-request-kit-and-write-endpoints):
// one spelling of a JSON body, an error answer, a closed object, a query parameter and a path. A file of its
// own at api/'s root so a capability's description and openapi/document.ts both stand on it.

export type Obj = Record<string, unknown>;

/** A schema of components.schemas (openapi/schemas.ts). */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** A request or response body of JSON. */
export const json = (schema: Obj) => ({ content: { 'application/json': { schema } } });

/** An error answer: `{"error": {...}}` (errors.ts), with its headers when it sends some. */
export const errorResponse = (description: string, headers?: Obj) => ({ description, ...(headers ? { headers } : {}), ...json(ref('Error')) });

/** A person's bearer token. */
export const BEARER = [{ bearerAuth: [] }];

/** The 401 of every route behind `auth`. */
export const AUTH_401 = { 401: errorResponse('Missing, malformed, expired or invalid bearer token.') };

/** An object with exactly these properties (every one required unless `required` says otherwise). */
export const closed = (properties: Obj, required = Object.keys(properties)) => ({ type: 'object', properties, required, additionalProperties: false });

/** An optional query parameter. */
export const queryParameter = (name: string, schema: Obj, description: string) => ({ name, in: 'query', required: false, description, schema });

/** `/device-information/:imei` -> `/device-information/{imei}` */
export const openApiPath = (honoPath: string) => honoPath.replace(/:([A-Za-z_]+)/g, '{$1}');

/** Adds `op` as the `method` operation of `honoPath`'s path item in `paths`; an operation described twice is a mistake. */
export function addOperation(paths: Record<string, Obj>, honoPath: string, method: string, op: Obj): void {
  const path = openApiPath(honoPath);
  if (paths[path]?.[method]) throw new Error(`${method.toUpperCase()} ${path} is described twice`);
  paths[path] = { ...paths[path], [method]: op };
}
