// Top-level UI: provides the Transport and switches between the sign-in
// screen and the signed-in shell.
import { useState } from 'react';
import { SignIn } from './features/signin/SignIn';
import { Shell } from './features/shell/Shell';
import { TransportProvider } from './transport/context';
import type { Transport } from './transport/types';

export function App({ transport }: { transport: Transport }) {
  const [signedIn, setSignedIn] = useState(false);

  function signOut() {
    transport.signOut();
    setSignedIn(false);
  }

  return (
    <TransportProvider transport={transport}>
      {signedIn ? <Shell onSignOut={signOut} /> : <SignIn onSignedIn={() => setSignedIn(true)} />}
    </TransportProvider>
  );
}
