// The signed-in half of the renderer: the shared live collections (DataProvider) around the shell,
// or around the read-only on-call board of a `?popout=board` window. App loads this module only
// once a sign-in starts (its own chunk, see App's loadSignedIn), so the sign-in screen, which a
// desktop server PC may show for hours, parses and holds none of it.
import { lazy, Suspense } from 'react';
import { DataProvider } from '../../data/store';
import { Shell } from './Shell';

const OnCallView = lazy(() => import('../oncall/OnCallView'));

export default function SignedIn({ board, onSignOut }: { board: boolean; onSignOut: () => void }) {
  return (
    <DataProvider>
      {board ? (
        <main className="popout-main">
          <Suspense fallback={<p className="muted">Loading…</p>}>
            <OnCallView readOnly />
          </Suspense>
        </main>
      ) : (
        <Shell onSignOut={onSignOut} />
      )}
    </DataProvider>
  );
}
