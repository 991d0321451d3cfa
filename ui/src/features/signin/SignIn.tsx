// Sign-in screen: passphrase field with show/hide, submit, and the error line
// (wrong passphrase, unreachable server, 429 countdown).
import { useEffect, useState, type FormEvent } from 'react';
import { useTransport } from '../../transport/context';
import { CleartextWarning } from '../shell/CleartextWarning';
import { EMPTY_PASSPHRASE, describeSignInError, formatRetryMessage, secondsLeft } from './messages';

export function SignIn({ onSignedIn, notice }: { onSignedIn: () => void; notice?: string | null }) {
  const transport = useTransport();
  const [passphrase, setPassphrase] = useState('');
  const [visible, setVisible] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [retryUntil, setRetryUntil] = useState<number | null>(null);
  const [now, setNow] = useState(() => Date.now());

  // Tick once a second while a 429 lock-out is running.
  useEffect(() => {
    if (retryUntil === null) return;
    const id = setInterval(() => {
      const t = Date.now();
      setNow(t);
      if (t >= retryUntil) {
        setRetryUntil(null);
        setError(null);
      }
    }, 1000);
    return () => clearInterval(id);
  }, [retryUntil]);

  const lockedOut = retryUntil !== null && secondsLeft(retryUntil, now) > 0;
  const shownError = lockedOut ? formatRetryMessage(secondsLeft(retryUntil, now)) : error;

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (busy || lockedOut) return;
    if (passphrase === '') {
      setError(EMPTY_PASSPHRASE);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await transport.signIn(passphrase);
      setPassphrase('');
      onSignedIn();
    } catch (err) {
      const failure = describeSignInError(err);
      setError(failure.message);
      if (failure.retryAfterSeconds !== undefined) {
        const t = Date.now();
        setNow(t);
        setRetryUntil(t + failure.retryAfterSeconds * 1000);
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="signin">
      <form className="signin-card" onSubmit={submit} noValidate>
        <h1 className="signin-title">Relay</h1>
        <p className="signin-subtitle">Operator sign-in</p>
        {transport.mode === 'relay-web' && <CleartextWarning testId="signin-cleartext-warning" />}
        {notice && !shownError && (
          <p className="muted" data-testid="signin-notice" role="status">
            {notice}
          </p>
        )}
        <label className="field-label" htmlFor="signin-passphrase">
          Passphrase
        </label>
        <div className="passphrase-row">
          <input
            id="signin-passphrase"
            data-testid="signin-passphrase"
            className="input"
            type={visible ? 'text' : 'password'}
            autoComplete="current-password"
            autoFocus
            value={passphrase}
            onChange={(e) => setPassphrase(e.target.value)}
            aria-invalid={shownError ? true : undefined}
            aria-describedby={shownError ? 'signin-error' : undefined}
          />
          <button
            type="button"
            className="button button-ghost"
            aria-pressed={visible}
            aria-controls="signin-passphrase"
            onClick={() => setVisible((v) => !v)}
          >
            {visible ? 'Hide' : 'Show'}
          </button>
        </div>
        <button
          type="submit"
          data-testid="signin-submit"
          className="button button-primary"
          disabled={busy || lockedOut}
        >
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {shownError && (
          <p id="signin-error" data-testid="signin-error" className="error-text" role="alert">
            {shownError}
          </p>
        )}
      </form>
    </main>
  );
}
