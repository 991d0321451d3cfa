// Desktop first-run setup: run the Relay server on this PC (direct LAN access on by default, or
// this PC only) or connect to another Relay server (URL typed or picked from the servers found
// on the LAN over mDNS; plain HTTP to a public address only with an explicit opt-in). Saving
// hands the choice to the shell (`save_setup`), which validates it, stores it and restarts.
import { useState, type FormEvent } from 'react';
import type { DesktopBridge, DiscoveredServer } from '../../transport/desktop';

export function DesktopSetup({ bridge }: { bridge: DesktopBridge }) {
  const [mode, setMode] = useState<'server' | 'client'>('server');
  const [lanAccess, setLanAccess] = useState(true);
  const [serverUrl, setServerUrl] = useState('');
  const [insecure, setInsecure] = useState(false);
  const [found, setFound] = useState<DiscoveredServer[] | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function discover() {
    setBusy(true);
    setError(null);
    try {
      setFound(await bridge.discoverServers());
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  }

  async function save(e: FormEvent) {
    e.preventDefault();
    if (mode === 'client' && serverUrl.trim() === '') {
      setError('Enter the Relay server URL.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await bridge.saveSetup(
        mode === 'server' ? { mode, lanAccess } : { mode, serverUrl: serverUrl.trim(), allowInsecureHttp: insecure },
      );
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      setBusy(false);
    }
  }

  return (
    <main className="signin">
      <form className="signin-card" onSubmit={save} noValidate data-testid="setup">
        <h1 className="signin-title">Relay</h1>
        <p className="signin-subtitle">Set up this PC</p>
        <label className="checkbox-row">
          <input type="radio" name="mode" data-testid="setup-server" checked={mode === 'server'} onChange={() => setMode('server')} />
          Run the Relay server on this PC
        </label>
        {mode === 'server' && (
          <label className="checkbox-row setup-indent">
            <input type="checkbox" data-testid="setup-lan" checked={lanAccess} onChange={(e) => setLanAccess(e.target.checked)} />
            Direct LAN access (other desktops and browsers on the LAN can connect; advertised over mDNS)
          </label>
        )}
        <label className="checkbox-row">
          <input type="radio" name="mode" data-testid="setup-client" checked={mode === 'client'} onChange={() => setMode('client')} />
          Connect to a Relay server
        </label>
        {mode === 'client' && (
          <div className="setup-indent">
            <label className="field-label" htmlFor="setup-url">Server URL</label>
            <input id="setup-url" data-testid="setup-url" className="input" placeholder="https://relay.example.com or http://noc-1.local:8090"
              value={serverUrl} onChange={(e) => setServerUrl(e.target.value)} />
            <button type="button" className="button button-ghost" data-testid="setup-discover" disabled={busy} onClick={() => void discover()}>
              Find servers on the LAN
            </button>
            {found && found.length === 0 && <p className="muted" data-testid="setup-none-found">No Relay server answered on the LAN.</p>}
            {found && found.length > 0 && (
              <ul className="setup-found" data-testid="setup-found">
                {found.map((s) => (
                  <li key={s.url}>
                    <button type="button" className="button button-ghost" onClick={() => setServerUrl(s.url)}>
                      {s.name} — {s.url}
                    </button>
                  </li>
                ))}
              </ul>
            )}
            <label className="checkbox-row">
              <input type="checkbox" data-testid="setup-insecure" checked={insecure} onChange={(e) => setInsecure(e.target.checked)} />
              Allow plain HTTP to a public address (not recommended)
            </label>
          </div>
        )}
        <button type="submit" data-testid="setup-save" className="button button-primary" disabled={busy}>
          {busy ? 'Working…' : 'Save and restart'}
        </button>
        {error && <p data-testid="setup-error" className="error-text" role="alert">{error}</p>}
      </form>
    </main>
  );
}
