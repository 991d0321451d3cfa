// Settings → About (desktop only): this version and the updater's state in words, with a button
// that opens the Update dialog (where Check, Download, Prepare and Restart are), and the release
// notes (ReleaseNotes.tsx) when the shell's bridge can read them.
import { useState, type ReactNode } from 'react';
import { AboutReleaseNotes } from './ReleaseNotes';
import { UpdateDialog } from './UpdateDialog';
import { useUpdate } from './UpdateContext';
import type { UpdateViewState } from './updateController';
import { describeUpdate } from './updateModel';

/** The panel's content (pure rendering; the markup tests render it directly). */
export function AboutCard({ state, onOpen, children }: { state: UpdateViewState; onOpen: () => void; children?: ReactNode }) {
  const s = state.snapshot;
  const status = state.unavailable !== null ? { text: state.unavailable, error: true } : describeUpdate(s, state.checked);
  return (
    <div className="panel card" data-testid="settings-about">
      <h2>About</h2>
      <dl className="kv">
        <dt>Version</dt>
        <dd data-testid="about-version">{s?.currentVersion ? `Relay v${s.currentVersion}` : '—'}</dd>
        <dt>Updates</dt>
        <dd className={status.error ? 'error-text' : undefined} data-testid="about-update-state">{status.text}</dd>
      </dl>
      <button type="button" className="button button-ghost" data-testid="about-updates" aria-haspopup="dialog" onClick={onOpen}>
        Updates…
      </button>
      {children}
    </div>
  );
}

export function AboutPanel() {
  const { controller, state, notes } = useUpdate();
  const [open, setOpen] = useState(false);
  if (!controller || !state) return null;
  return (
    <>
      <AboutCard state={state} onOpen={() => setOpen(true)}>
        {notes && <AboutReleaseNotes source={notes} state={state} />}
      </AboutCard>
      {open && <UpdateDialog controller={controller} state={state} onClose={() => setOpen(false)} />}
    </>
  );
}
