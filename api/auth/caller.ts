// Who is calling: set by the bearer-token middleware, read by every handler with `c.get('caller')`.
// The Hono `Env` of the authenticated routes is declared here, beside the variable it types (Hono habit).

/** A person's role (users.role, the token's `role` claim). */
export type Role = 'admin' | 'user';

/**
 * Who may call: a person (admin or user), or a machine with an integration key (integration_keys), which
 * reads only the SCADA integrations' outputs (docs/decisions.md#integration-keys-and-the-mask).
 */
export type CallerRole = Role | 'integration';

export interface Caller {
  /** The person's users.id; null for an integration key. */
  userId: number | null;
  /** The integration key's id (set for an integration key only). */
  keyId?: string;
  org: string;
  role: CallerRole;
  /** IANA zone for displayed timestamps and `from`/`to` days (token `tz`). */
  timeZone: string;
  /** The organisation's MaskFaultDetails (spec 3.5), read per request: an admin may switch it on at any time. */
  maskFaultDetails: boolean;
}

export interface AuthEnv {
  Variables: {
    caller: Caller;
    /** Set by a route whose streamed text answer masks every cell itself (api/fault-mask-policy.ts `routeMasksItself`). */
    masksItself?: true;
    /** Set by the route option of an integration output (auth/require-auth.ts `integrationOutput`), before `auth`. */
    integrationOutput?: true;
  };
}
