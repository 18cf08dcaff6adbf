// GET/POST against the documented API (same origin). Errors become ApiError with the API's machine code and
// a message that says what to do; a 401 ends the session (session.ts) so the sign-in screen explains it.
import { endSession, getSession, REJECTED_MESSAGE } from './session';
import { FaultlineError } from '../../../errors/base';

/** `code` is the API's machine code (api/errors.ts API_ERRORS), or HTTP_<status> when the answer had none. */
export class ApiError extends FaultlineError {
  constructor(code: string, message: string, readonly status: number, readonly retryAfterS: number | null = null) {
    // Worth another try: the server is away or busy, or asks to be asked again later.
    super(code, message, { retriable: status >= 500 || status === 429 || status === 408 || status === 0 });
    this.name = 'ApiError';
  }
}

export type Query = Record<string, string | number | undefined | null>;

export function queryString(q: Query): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

async function errorOf(res: Response): Promise<ApiError> {
  let code = 'HTTP_' + res.status;
  let message = `The server answered ${res.status}.`;
  try {
    const body = (await res.json()) as { error?: { code?: string; message?: string } };
    if (body.error?.code) code = body.error.code;
    if (body.error?.message) message = body.error.message;
  } catch { /* not JSON: keep the status */ }
  if (res.status >= 500) message = `The server failed (${code}). Try again in a minute; if it persists, tell the faultline operator.`;
  const retry = Number(res.headers.get('retry-after'));
  return new ApiError(code, message, res.status, Number.isFinite(retry) && retry > 0 ? retry : null);
}

async function send(path: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(path, init);
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError('NETWORK', 'Cannot reach the faultline server. Check the network connection; this view retries on its own.', 0);
  }
}

export async function apiGet<T>(path: string, query: Query = {}, signal?: AbortSignal): Promise<T> {
  const session = getSession();
  const res = await send(path + queryString(query), {
    // Times to the second (api/device-records/routes.ts): the portal shows every time with its seconds.
    headers: { accept: 'application/json', 'x-time-precision': 'seconds', ...(session ? { authorization: `Bearer ${session.token}` } : {}) },
    ...(signal ? { signal } : {}),
  });
  if (res.status === 401) {
    endSession(REJECTED_MESSAGE);
    throw new ApiError('UNAUTHENTICATED', REJECTED_MESSAGE, 401);
  }
  if (!res.ok) throw await errorOf(res);
  return (await res.json()) as T;
}

/** POST a JSON body (admin actions such as a test fault); errors as apiGet. */
export async function apiPost<T>(path: string, body: unknown): Promise<T> {
  const session = getSession();
  const res = await send(path, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json', ...(session ? { authorization: `Bearer ${session.token}` } : {}) },
    body: JSON.stringify(body),
  });
  if (res.status === 401) {
    endSession(REJECTED_MESSAGE);
    throw new ApiError('UNAUTHENTICATED', REJECTED_MESSAGE, 401);
  }
  if (!res.ok) throw await errorOf(res);
  return (await res.json()) as T;
}

/** GET a file (an export) with the session's token: its bytes and the name the server gave it. */
export async function apiFile(path: string, query: Query = {}): Promise<{ blob: Blob; name: string }> {
  const session = getSession();
  const res = await send(path + queryString(query), { headers: session ? { authorization: `Bearer ${session.token}` } : {} });
  if (res.status === 401) {
    endSession(REJECTED_MESSAGE);
    throw new ApiError('UNAUTHENTICATED', REJECTED_MESSAGE, 401);
  }
  if (!res.ok) throw await errorOf(res);
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'export';
  return { blob: await res.blob(), name };
}

/** The login answer: the token, and whether the organisation masks fault details (which filters it may use). */
export async function login(email: string, password: string): Promise<{ token: string; masked: boolean }> {
  const res = await send('/api/auth/login', {
    method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ email, password }),
  });
  if (!res.ok) throw await errorOf(res);
  const body = (await res.json()) as { accessToken?: unknown; maskFaultDetails?: unknown };
  if (typeof body.accessToken !== 'string') throw new ApiError('INTERNAL', 'The server answered without a token.', res.status);
  return { token: body.accessToken, masked: body.maskFaultDetails === true };
}
