// Schema registry client for the app: registers Avro schemas through the Confluent-compatible REST API
// (Apicurio's /apis/ccompat/v7 in tests and local runs) and encodes/decodes values in the Confluent wire
// format (magic byte 0, 4-byte big-endian schema id, Avro binary).
//
// Registration is a plain POST rather than @kafkajs/confluent-schema-registry's register(): that one
// PUTs /config/{subject} before the subject exists, which older Apicurio versions answer with 404
// (kafkajs/confluent-schema-registry#200, Apicurio#1097). The compatibility rule is set before the version
// is registered (an existing subject is checked under the rule this release wants), or right after the first
// version exists where the registry refuses rules on unknown subjects. Encoding and the schema lookup by id
// are the library's (cache, avsc); decoding resolves the writer's schema into the reader's (docs/decisions.md#schema-evolution).
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import type avro from 'avsc';
import { RegistryError, codeForStatus } from './registry-errors.js';

export { RegistryError } from './registry-errors.js';
export type { RegistryErrorCode } from './registry-errors.js';

export type Compatibility =
  | 'NONE' | 'BACKWARD' | 'BACKWARD_TRANSITIVE' | 'FORWARD' | 'FORWARD_TRANSITIVE' | 'FULL' | 'FULL_TRANSITIVE';

export interface RegistryClient {
  /** The base URL, e.g. http://127.0.0.1:28081/apis/ccompat/v7. */
  readonly url: string;
  /**
   * Registers an Avro schema under a subject and returns its schema id (the same id again for a schema
   * already registered there). Throws RegistryError SCHEMA_INCOMPATIBLE when the subject's rule refuses it.
   */
  register(subject: string, schema: object | string): Promise<number>;
  /** The value in the Confluent wire format, written with schema `id`. Throws VALUE_INVALID on a mismatch. */
  encode(id: number, value: unknown): Promise<Buffer>;
  /**
   * The value in a wire-format buffer. With `reader`, resolved into that schema (fields the writer lacks take
   * their defaults, fields the reader lacks are dropped); without, read with the schema it was written with.
   * Throws SCHEMA_UNREADABLE when the writer's schema cannot be resolved into the reader's.
   */
  decode<T = unknown>(buffer: Buffer, reader?: avro.Type): Promise<T>;
  /**
   * Whether `schema` may be registered under `subject` by the subject's rule (with a *_TRANSITIVE rule:
   * against every version). True for a subject that does not exist yet.
   */
  compatible(subject: string, schema: object | string): Promise<boolean>;
  /** The subject's compatibility level, or the registry's global one when the subject has none. */
  compatibility(subject: string): Promise<string>;
}

export interface RegistryOptions {
  /**
   * Rule set on every subject this client registers to. Default BACKWARD_TRANSITIVE: consumers upgrade first,
   * and today's reader reads records of every earlier version, so a replay of the whole log runs.
   */
  compatibility?: Compatibility;
  /** Per-request timeout of the REST calls this module makes itself. Default 5000 ms. */
  timeoutMs?: number;
}

/** Confluent's TopicNameStrategy: the value schema of topic `t` is registered under `t-value`. */
export function valueSubject(topic: string): string {
  return `${topic}-value`;
}

const CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';
const WIRE_HEADER_BYTES = 5; // magic byte + 4-byte schema id

type RegistryCall = <T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) => Promise<T>;

/** One request to the registry's REST API: its JSON answer, or a RegistryError that says what went wrong. */
function registryCall(base: string, timeoutMs: number): RegistryCall {
  return async function call<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: { Accept: CONTENT_TYPE, ...(body === undefined ? {} : { 'Content-Type': CONTENT_TYPE }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new RegistryError('REGISTRY_UNAVAILABLE', `${method} ${base}${path}: ${describe(err)}`, { cause: err });
    }
    const text = await res.text();
    let data: unknown;
    try {
      data = text === '' ? undefined : JSON.parse(text);
    } catch {
      data = undefined;
    }
    if (!res.ok) {
      const { message, error_code: errorCode } = (data ?? {}) as { message?: unknown; error_code?: unknown };
      throw new RegistryError(codeForStatus(res.status), `${method} ${path}: ${res.status} ${typeof message === 'string' ? message : text}`, {
        status: res.status, ...(typeof errorCode === 'number' ? { errorCode } : {}),
      });
    }
    if (data === undefined) throw new RegistryError('REGISTRY_ERROR', `${method} ${path}: answer is not JSON: ${text.slice(0, 200)}`);
    return data as T;
  };
}

export function createRegistry(url: string, options: RegistryOptions = {}): RegistryClient {
  const base = url.replace(/\/+$/, '');
  const rule = options.compatibility ?? 'BACKWARD_TRANSITIVE';
  const timeoutMs = options.timeoutMs ?? 5000;
  // Few quick retries inside the library: the caller (a stage) owns the real retry policy.
  const library = new SchemaRegistry({ host: base, clientId: 'faultline', retry: { retries: 2, maxRetryTimeInSecs: 2 } });
  // Subjects whose rule this client already set: one PUT per subject per process, not per register().
  const ruled = new Set<string>();
  // Per reader type, per writer schema id: how to read the one into the other (built once, used per record).
  const resolvers = new WeakMap<avro.Type, Map<number, avro.Resolver | null>>();
  const call = registryCall(base, timeoutMs);
  const setRule = async (subject: string) => {
    try {
      await call('PUT', `/config/${subjectPath(subject)}`, { compatibility: rule });
    } catch (err) {
      // Apicurio creates a subject's first rule without a lock: when processes starting together set it at once,
      // the later ones get 409 "A rule named 'COMPATIBILITY' already exists". The rule exists now, and the same
      // PUT again updates it (so this process's rule wins either way).
      if (!(err instanceof RegistryError && err.status === 409)) throw err;
      await call('PUT', `/config/${subjectPath(subject)}`, { compatibility: rule });
    }
    ruled.add(subject);
  };

  const subjectPath = (subject: string) => encodeURIComponent(subject);

  return {
    url: base,

    async register(subject, schema) {
      const schemaText = typeof schema === 'string' ? schema : JSON.stringify(schema);
      if (!ruled.has(subject)) {
        try {
          await setRule(subject);
        } catch (err) {
          if (!(err instanceof RegistryError && err.code === 'NOT_FOUND')) throw err;
        }
      }
      const { id } = await call<{ id?: unknown }>('POST', `/subjects/${subjectPath(subject)}/versions`, { schema: schemaText });
      if (typeof id !== 'number') throw new RegistryError('REGISTRY_ERROR', `register ${subject}: no numeric id in the answer`);
      if (!ruled.has(subject)) await setRule(subject);
      return id;
    },

    async encode(id, value) {
      if (!Number.isInteger(id) || id <= 0) throw new RegistryError('NOT_FOUND', `invalid schema id ${String(id)}`);
      try {
        return await library.encode(id, value);
      } catch (err) {
        throw fromLibrary(err, `encode with schema ${id}`);
      }
    },

    async decode<T>(buffer: Buffer, reader?: avro.Type): Promise<T> {
      if (!Buffer.isBuffer(buffer) || buffer.length < WIRE_HEADER_BYTES || buffer[0] !== 0) {
        throw new RegistryError('WIRE_FORMAT_INVALID', 'expected magic byte 0 and a 4-byte schema id');
      }
      const id = buffer.readInt32BE(1);
      if (!reader) {
        try {
          return (await library.decode(buffer)) as T;
        } catch (err) {
          throw fromLibrary(err, `decode with schema ${id}`);
        }
      }
      let writer: avro.Type;
      try {
        writer = (await library.getSchema(id)) as unknown as avro.Type;
      } catch (err) {
        throw fromLibrary(err, `decode with schema ${id}`);
      }
      let byWriter = resolvers.get(reader);
      if (!byWriter) resolvers.set(reader, (byWriter = new Map()));
      let resolver = byWriter.get(id);
      if (resolver === undefined) {
        try {
          // null: the writer's schema is the reader's, read directly.
          resolver = reader.equals(writer) ? null : reader.createResolver(writer);
        } catch (err) {
          throw new RegistryError('SCHEMA_UNREADABLE', `schema ${id} cannot be read as ${reader.name ?? 'the current schema'}: ${(err as Error).message}`, { cause: err });
        }
        byWriter.set(id, resolver);
      }
      try {
        return reader.fromBuffer(buffer.subarray(WIRE_HEADER_BYTES), resolver ?? undefined) as T;
      } catch (err) {
        throw fromLibrary(err, `decode with schema ${id}`);
      }
    },

    async compatible(subject, schema) {
      const schemaText = typeof schema === 'string' ? schema : JSON.stringify(schema);
      try {
        // No version in the path: checked against the versions the subject's rule names (all, when transitive).
        const { is_compatible: ok } = await call<{ is_compatible?: unknown }>('POST', `/compatibility/subjects/${subjectPath(subject)}/versions`, { schema: schemaText });
        return ok === true;
      } catch (err) {
        if (err instanceof RegistryError && err.code === 'NOT_FOUND') return true;
        throw err;
      }
    },

    async compatibility(subject) {
      try {
        const own = await call<{ compatibilityLevel?: string }>('GET', `/config/${subjectPath(subject)}?defaultToGlobal=true`);
        if (own.compatibilityLevel) return own.compatibilityLevel;
      } catch (err) {
        if (!(err instanceof RegistryError && err.code === 'NOT_FOUND')) throw err;
      }
      const global = await call<{ compatibilityLevel?: string }>('GET', '/config');
      if (!global.compatibilityLevel) throw new RegistryError('REGISTRY_ERROR', 'GET /config: no compatibilityLevel');
      return global.compatibilityLevel;
    },
  };
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err.message}${cause}`;
}

// The library throws mappersmith ResponseErrors (with `status`) for HTTP failures, its own
// ConfluentSchemaRegistry*Error classes for bad values and buffers, and avsc's errors for bad payloads.
function fromLibrary(err: unknown, what: string): RegistryError {
  if (err instanceof RegistryError) return err;
  const e = err as { name?: unknown; status?: unknown; message?: unknown; paths?: unknown };
  const message = `${what}: ${typeof e.message === 'string' ? e.message : String(err)}`;
  if (e.name === 'ConfluentSchemaRegistryValidationError') {
    const paths = Array.isArray(e.paths) ? ` (fields: ${(e.paths as string[][]).map((p) => p.join('.')).join(', ')})` : '';
    return new RegistryError('VALUE_INVALID', `${message}${paths}`, { cause: err });
  }
  if (e.name === 'ConfluentSchemaRegistryArgumentError') return new RegistryError('WIRE_FORMAT_INVALID', message, { cause: err });
  if (e.name === 'ResponseError' && typeof e.status === 'number') {
    // mappersmith reports a failed connection as a response with status 400 and no HTTP answer behind it.
    if (isConnectionFailure(message)) return new RegistryError('REGISTRY_UNAVAILABLE', message, { cause: err });
    return new RegistryError(codeForStatus(e.status), message, { status: e.status, cause: err });
  }
  if (isConnectionFailure(message)) return new RegistryError('REGISTRY_UNAVAILABLE', message, { cause: err });
  // avsc: truncated or garbled payload behind a valid header.
  return new RegistryError('WIRE_FORMAT_INVALID', message, { cause: err });
}

function isConnectionFailure(message: string): boolean {
  return /ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|socket hang up|timeout/i.test(message);
}
