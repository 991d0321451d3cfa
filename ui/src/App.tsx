// Top-level UI: provides the Transport, toasts and the shared live collections, and
// switches between the sign-in screen and the signed-in shell (or the read-only
// on-call popout at ?popout=board).
import { lazy, Suspense, useState } from 'react';
import { ToastProvider } from './components/Toasts';
import { DataProvider } from './data/store';
import { Shell } from './features/shell/Shell';
import { SignIn } from './features/signin/SignIn';
import { TransportProvider } from './transport/context';
import type { Transport } from './transport/types';

const OnCallView = lazy(() => import('./features/oncall/OnCallView'));

export function popoutRoute(search: string): 'board' | null {
  const p = new URLSearchParams(search).get('popout');
  return p === 'board' || p === 'popout/board' ? 'board' : null;
}

export function App({ transport, search = '' }: { transport: Transport; search?: string }) {
  const [signedIn, setSignedIn] = useState(false);
  const popout = popoutRoute(search);

  function signOut() {
    transport.signOut();
    setSignedIn(false);
  }

  return (
    <TransportProvider transport={transport}>
      <ToastProvider>
        {!signedIn ? (
          <SignIn onSignedIn={() => setSignedIn(true)} />
        ) : (
          <DataProvider>
            {popout === 'board' ? (
              <main className="popout-main">
                <Suspense fallback={<p className="muted">Loading…</p>}>
                  <OnCallView readOnly />
                </Suspense>
              </main>
            ) : (
              <Shell onSignOut={signOut} />
            )}
          </DataProvider>
        )}
      </ToastProvider>
    </TransportProvider>
  );
}
