// The signed-in session: the access token of POST /api/auth/login, kept in localStorage so a reload or a
// second tab of the same control-room browser stays signed in. The token's own `exp` decides when it ends:
// a timer signs out at that moment with a message saying why, and any 401 from the API does the same.
export interface Session {
  token: string;
  email: string;
  org: string;
  role: string;
  timeZone: string;
  /** The organisation masks fault details: the views offer only None / Fault and no class filter or sort. */
  masked: boolean;
  /** Token expiry, epoch ms. */
  expiresAt: number;
}

const KEY = 'faultline.session';
export const EXPIRED_MESSAGE = 'Your session ended: sign-ins last 24 hours. Sign in again to continue.';
export const REJECTED_MESSAGE = 'The server no longer accepts your sign-in (it expired or your account changed). Sign in again.';

type Listener = (session: Session | null, reason: string | null) => void;
const listeners = new Set<Listener>();
let current: Session | null = null;
let reason: string | null = null;
let timer: ReturnType<typeof setTimeout> | undefined;

function claimsOf(token: string): Record<string, unknown> | null {
  const part = token.split('.')[1];
  if (!part) return null;
  try {
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
    const value: unknown = JSON.parse(json);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Reads what the portal needs from a token; null when it is not a faultline access token. */
export function sessionOf(token: string, email: string, masked = false): Session | null {
  const c = claimsOf(token);
  if (!c || typeof c.exp !== 'number' || typeof c.sub !== 'string') return null;
  return {
    token,
    email,
    org: String(c.org ?? ''),
    role: String(c.role ?? ''),
    timeZone: typeof c.tz === 'string' ? c.tz : 'UTC',
    masked,
    expiresAt: c.exp * 1000,
  };
}

function emit(): void {
  for (const l of listeners) l(current, reason);
}

function arm(): void {
  clearTimeout(timer);
  if (!current) return;
  // setTimeout holds at most ~24.8 days; tokens last 24 h.
  timer = setTimeout(() => endSession(EXPIRED_MESSAGE), Math.max(0, current.expiresAt - Date.now()));
}

/** The stored form: `{token, email, masked}` (the token's `sub` is a user id, not the address). */
function read(text: string | null): Session | null {
  if (!text) return null;
  try {
    const v = JSON.parse(text) as { token?: unknown; email?: unknown; masked?: unknown };
    return typeof v.token === 'string' ? sessionOf(v.token, typeof v.email === 'string' ? v.email : '', v.masked === true) : null;
  } catch {
    return null;
  }
}

export function startSession({ token, masked }: { token: string; masked: boolean }, email: string): Session {
  const s = sessionOf(token, email, masked);
  if (!s) throw new Error('The server answered with a token the portal cannot read.');
  current = s;
  reason = null;
  localStorage.setItem(KEY, JSON.stringify({ token, email, masked }));
  arm();
  emit();
  return s;
}

/** Signs out; `why` is shown on the sign-in screen (null: the user chose to). */
export function endSession(why: string | null): void {
  clearTimeout(timer);
  const had = current !== null;
  current = null;
  reason = why;
  localStorage.removeItem(KEY);
  if (had || why) emit();
}

export function restoreSession(): void {
  const text = localStorage.getItem(KEY);
  if (!text) return;
  const s = read(text);
  if (!s) { localStorage.removeItem(KEY); return; }
  if (s.expiresAt <= Date.now()) {
    localStorage.removeItem(KEY);
    reason = EXPIRED_MESSAGE;
    return;
  }
  current = s;
  arm();
}

export const getSession = () => current;
export const getReason = () => reason;

export function onSession(l: Listener): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

// Another tab signed in or out: follow it.
window.addEventListener('storage', (e) => {
  if (e.key !== KEY) return;
  if (e.newValue) {
    const s = read(e.newValue);
    if (s && s.expiresAt > Date.now()) { current = s; reason = null; arm(); emit(); }
  } else if (current) {
    endSession(null);
  }
});
