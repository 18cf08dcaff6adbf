import { useState } from 'preact/hooks';
import { ApiError, login } from '../api/client';
import { startSession } from '../api/session';

export function LoginView({ reason }: { reason: string | null }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      startSession(await login(email.trim(), password), email.trim());
    } catch (err) {
      const a = err instanceof ApiError ? err : null;
      setError(a?.code === 'INVALID_CREDENTIALS' ? 'Wrong email or password. Check both and try again.'
        : a?.code === 'RATE_LIMITED' ? `Too many failed sign-ins. Wait ${a.retryAfterS ? Math.ceil(a.retryAfterS / 60) + ' minutes' : 'a while'} and try again.`
        : a ? a.message : 'Sign-in failed. Try again.');
      setBusy(false);
    }
  }

  return (
    <main id="main" class="login">
      <form class="login-card" onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">faultline</h1>
        <p class="muted">Sign in with your portal account.</p>
        {reason && <p class="notice notice-warn" role="alert" data-testid="session-message">{reason}</p>}
        <label>Email<input type="email" name="email" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} /></label>
        <label>Password<input type="password" name="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} /></label>
        {error && <p class="notice notice-error" role="alert" data-testid="login-error">{error}</p>}
        <button type="submit" class="button primary" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
    </main>
  );
}
