// Sign-in screen: passphrase field with show/hide, submit, and the error line
// (wrong passphrase, unreachable server, 429 countdown). On the desktop after a reload it signs in
// by itself with the shell's saved passphrase (App decides when: ./resume). A browser on the data
// API is told that its sign-in does not survive a reload, and where Relay Web is (./DirectAccessNote).
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTransport } from '../../transport/context';
import { CleartextWarning } from '../shell/CleartextWarning';
import { DirectAccessNote } from './DirectAccessNote';
import { EMPTY_PASSPHRASE, describeSignInError, formatRetryMessage, secondsLeft } from './messages';
import { useDesktopPassphrase } from './useDesktopPassphrase';

export function SignIn({ onSignedIn, onAttempt, notice, autoSignInWithSaved = false }: {
  onSignedIn: () => void;
  /** The operator started typing or a sign-in started: App fetches the signed-in screens meanwhile. */
  onAttempt?: () => void;
  notice?: string | null;
  /** Desktop main window after a reload: sign in with the shell's saved passphrase once, if it has one. */
  autoSignInWithSaved?: boolean;
}) {
  const transport = useTransport();
  const [passphrase, setPassphrase] = useState('');
  const [visible, setVisible] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [retryUntil, setRetryUntil] = useState<number | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const desktop = useDesktopPassphrase(transport.mode === 'desktop');
  const [remember, setRemember] = useState(false);

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

  // Once per mount, when the shell says a passphrase is available (see ./resume).
  const autoTried = useRef(false);
  useEffect(() => {
    if (!autoSignInWithSaved || autoTried.current || !desktop.info?.passphraseAvailable) return;
    autoTried.current = true;
    void signInWithSaved();
  });

  const lockedOut = retryUntil !== null && secondsLeft(retryUntil, now) > 0;
  const shownError = lockedOut ? formatRetryMessage(secondsLeft(retryUntil, now)) : error;

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (passphrase === '') {
      setError(EMPTY_PASSPHRASE);
      return;
    }
    await signInWith(passphrase, remember && desktop.canRemember);
  }

  async function signInWithSaved() {
    // Client mode: the shell signs in with what it remembered; server mode: reveal, then sign in.
    const saved = transport.signInWithSaved?.bind(transport);
    if (desktop.info?.mode === 'client' && saved) return attempt(saved, null);
    try {
      const secret = await desktop.reveal();
      await signInWith(secret, false);
    } catch (err) {
      setError(err instanceof Error ? err.message : 'The saved passphrase is not available.');
    }
  }

  function signInWith(secret: string, rememberIt: boolean) {
    return attempt(() => transport.signIn(secret), rememberIt ? secret : null);
  }

  /** Runs one sign-in; `toRemember` is kept by the shell after it succeeded. */
  async function attempt(signIn: () => Promise<void>, toRemember: string | null) {
    if (busy || lockedOut) return;
    onAttempt?.();
    setBusy(true);
    setError(null);
    try {
      await signIn();
      if (toRemember !== null) {
        // Signed in either way; a store that refuses only means typing it again next time.
        await desktop.remember(toRemember).catch((err: unknown) => console.error('relay desktop: remember_passphrase failed', err));
      }
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
            onChange={(e) => {
              onAttempt?.();
              setPassphrase(e.target.value);
            }}
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
        {desktop.info?.mode === 'client' && (
          <label className="checkbox-row" title={desktop.canRemember ? undefined : 'No OS secret store: this build does not keep passphrases in plaintext.'}>
            <input
              type="checkbox"
              data-testid="signin-remember"
              checked={remember && desktop.canRemember}
              disabled={!desktop.canRemember}
              onChange={(e) => setRemember(e.target.checked)}
            />
            Remember on this computer
          </label>
        )}
        <button
          type="submit"
          data-testid="signin-submit"
          className="button button-primary"
          disabled={busy || lockedOut}
        >
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {desktop.info?.passphraseAvailable && (
          <div className="signin-saved">
            <button type="button" data-testid="signin-use-saved" className="button button-ghost" disabled={busy || lockedOut} onClick={() => void signInWithSaved()}>
              {desktop.info.mode === 'server' ? "Use this server's passphrase" : 'Use saved passphrase'}
            </button>
            {desktop.info.mode === 'client' && (
              <button type="button" data-testid="signin-forget" className="button button-ghost" disabled={busy} onClick={() => void desktop.forget().catch((err: unknown) => setError(err instanceof Error ? err.message : String(err)))}>
                Forget saved passphrase
              </button>
            )}
          </div>
        )}
        {shownError && (
          <p id="signin-error" data-testid="signin-error" className="error-text" role="alert">
            {shownError}
          </p>
        )}
        <DirectAccessNote />
      </form>
    </main>
  );
}
