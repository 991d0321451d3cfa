// Desktop only: "Change connection…" clears the saved setup (`reset_setup`); the app restarts
// into the setup screen (explicit command-line flags still win over the saved setup).
import { useState } from 'react';
import { DesktopBridge } from '../../transport/desktop';

export function DesktopConnection({ w = globalThis }: { w?: unknown }) {
  const [bridge] = useState(() => DesktopBridge.of(w));
  const [error, setError] = useState<string | null>(null);
  if (!bridge) return null;
  async function change() {
    if (!window.confirm('Change how this PC connects to Relay? The app restarts into the setup screen.')) return;
    try {
      await bridge!.resetSetup();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }
  return (
    <>
      <dt>Setup</dt>
      <dd>
        <button type="button" className="button button-ghost" data-testid="settings-change-connection" onClick={() => void change()}>
          Change connection…
        </button>
        {error && <span className="error-text" role="alert"> {error}</span>}
      </dd>
    </>
  );
}
