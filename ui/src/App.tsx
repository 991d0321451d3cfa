// Top-level UI: provides the Transport, toasts and the shared live collections, and
// switches between the sign-in screen and the signed-in shell (or the read-only
// on-call popout at ?popout=board). On Relay Web a reload first tries to resume the session
// from its HttpOnly cookie, and the desktop main window after a reload signs in with the shell's
// saved passphrase (./features/signin/resume), so the passphrase is asked only when neither works.
// A pop-out of a browser on the data API borrows its opener's in-memory session (lib/sessionHandoff).
// Everything behind the sign-in (the data stores, the shell, its tabs) is a separate chunk that is
// fetched when a sign-in starts (loadSignedIn), not while the sign-in screen waits.
import { lazy, Suspense, useEffect, useState } from 'react';
import { FallbackBoundary } from './components/FallbackBoundary';
import { ToastProvider } from './components/Toasts';
import { navigationType, resumeOnStart } from './features/signin/resume';
import { SignIn } from './features/signin/SignIn';
import { borrowSessionFromOpener, lendSessionToPopouts } from './lib/sessionHandoff';
import { clearAllDrafts } from './lib/windowDrafts';
import { TransportProvider } from './transport/context';
import type { Transport } from './transport/types';

/** The signed-in half (./features/shell/SignedIn); asking again after it loaded costs nothing. */
export const loadSignedIn = () => import('./features/shell/SignedIn');
const SignedIn = lazy(loadSignedIn);
const preloadSignedIn = () => void loadSignedIn().catch(() => {});

/** Shown only if the signed-in chunk cannot be fetched (the server went away mid-sign-in). */
const SIGNED_IN_UNAVAILABLE = (
  <main className="signin">
    <h1 className="signin-title">Relay</h1>
    <p className="panel muted" role="alert" data-testid="signed-in-unavailable">
      Relay could not load its screens from the server. Reload when the connection is back.
    </p>
  </main>
);

export const SESSION_ENDED = 'Your Relay Web session has ended. Sign in again.';

export function popoutRoute(search: string): 'board' | null {
  const p = new URLSearchParams(search).get('popout');
  return p === 'board' || p === 'popout/board' ? 'board' : null;
}

export function App({ transport, search = '' }: { transport: Transport; search?: string }) {
  // A desktop popout may start signed in with the main window's session.
  const [signedIn, setSignedIn] = useState(() => transport.isSignedIn?.() ?? false);
  const [notice, setNotice] = useState<string | null>(null);
  const popout = popoutRoute(search);
  const web = transport.mode === 'relay-web';
  // A window that starts signed out resumes its session without the passphrase (./features/signin/resume).
  const [resume] = useState(() => (signedIn ? null : resumeOnStart({ mode: transport.mode, navigation: navigationType(), popout: popout !== null })));
  const [resuming, setResuming] = useState(() => resume === 'cookie' && transport.resumeSession !== undefined);
  // A browser on the data API: a pop-out borrows the session of the window that opened it.
  const direct = transport.mode === 'direct' || transport.mode === undefined;
  const [borrowing, setBorrowing] = useState(() => !signedIn && direct && popout !== null && transport.adoptSession !== undefined);
  // Desktop main window after a reload: SignIn uses the shell's saved passphrase once, not again after a sign-out in this page.
  const [autoSaved, setAutoSaved] = useState(resume === 'saved-passphrase');
  // A sign-in that starts by itself (resume, borrow, saved passphrase) fetches the shell meanwhile.
  useEffect(() => {
    if (resuming || borrowing || autoSaved) preloadSignedIn();
    // Only at start: later renders change these flags on the way to signed in.
  }, []); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => {
    if (!resuming) return;
    let live = true;
    void transport.resumeSession!()
      .catch(() => false)
      .then((ok) => {
        if (!live) return;
        if (ok) setSignedIn(true);
        setResuming(false);
      });
    return () => {
      live = false;
    };
  }, [transport, resuming]);
  useEffect(() => {
    if (!borrowing) return;
    let live = true;
    void borrowSessionFromOpener().then((token) => {
      if (!live) return;
      if (token) {
        transport.adoptSession!(token);
        setSignedIn(true);
      }
      setBorrowing(false);
    });
    return () => {
      live = false;
    };
  }, [transport, borrowing]);
  // ...and the signed-in window lends it to the pop-outs it opened (lib/sessionHandoff).
  useEffect(() => {
    if (!signedIn || !direct || !transport.sessionToken) return;
    return lendSessionToPopouts(() => transport.sessionToken?.() ?? null);
  }, [transport, signedIn, direct]);
  // A desktop auxiliary window runs on a borrowed token that can be revoked or expire.
  const borrowed = transport.mode === 'desktop' && new URLSearchParams(search).has('popout');

  // Relay Web (or a desktop popout): once the server has definitively refused the session
  // (re-authentication failed), go back to the sign-in screen. Only a successful sign-in leaves it.
  useEffect(() => {
    if (!web && !borrowed) return;
    return transport.onStateChange((s) => {
      if (s !== 'auth-failed') return;
      setSignedIn((was) => {
        if (was) setNotice(SESSION_ENDED);
        return false;
      });
    });
  }, [transport, web, borrowed]);

  function signOut() {
    transport.signOut();
    clearAllDrafts(); // the next operator in this window starts clean
    setAutoSaved(false);
    setNotice(null);
    setSignedIn(false);
  }

  return (
    <TransportProvider transport={transport}>
      <ToastProvider>
        {resuming || borrowing ? (
          <main className="signin">
            <h1 className="signin-title">Relay</h1>
            <p className="muted" role="status" data-testid="session-resuming">
              Resuming your session…
            </p>
          </main>
        ) : !signedIn ? (
          <SignIn
            notice={notice}
            autoSignInWithSaved={autoSaved && notice === null}
            onAttempt={preloadSignedIn}
            onSignedIn={() => {
              setNotice(null);
              setSignedIn(true);
            }}
          />
        ) : (
          <FallbackBoundary fallback={SIGNED_IN_UNAVAILABLE}>
            <Suspense
              fallback={
                <p className="muted" role="status" data-testid="signed-in-loading">
                  Loading…
                </p>
              }
            >
              <SignedIn board={popout === 'board'} onSignOut={signOut} />
            </Suspense>
          </FallbackBoundary>
        )}
      </ToastProvider>
    </TransportProvider>
  );
}
