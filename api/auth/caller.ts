// Who is calling: set by the bearer-token middleware, read by every handler with `c.get('caller')`.
// The Hono `Env` of the authenticated routes is declared here, beside the variable it types (Hono habit).

export type Role = 'admin' | 'user';

export interface Caller {
  userId: number;
  org: string;
  role: Role;
  /** IANA zone for displayed timestamps and `from`/`to` days (token `tz`). */
  timeZone: string;
  /** The organisation's MaskFaultDetails (spec 3.5), read per request: an admin may switch it on at any time. */
  maskFaultDetails: boolean;
}

export interface AuthEnv {
  Variables: { caller: Caller };
}
