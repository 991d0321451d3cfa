// Settings: connection info, About (desktop: this version and the update state), System health (read-only operator dashboard), Data administration
// (backups; desktop server mode only) and Administration (accounts, devices, authority on the
// server-mode desktop; the Wiki and read-only accounts through the protected sign-in on Relay Web
// and, once paired, on a client-mode desktop; a browser on the data API port has none, and is
// told where administration is instead),
// appearance (accent colors), this device's alarm sound, this device's alert card time zone, this
// device's Dynatrace dashboards, Data Manager.
import { useState } from 'react';
import { ACCENTS, ACCENT_KEY, applyAccent, readAccent } from '../../lib/accent';
import { useConnectionState, useTransport } from '../../transport/context';
import { Administration } from '../admin/AdministrationPanel';
import { DashboardsSettings } from '../dynatrace/DashboardsSettings';
import { CardZoneSetting } from '../alerts/CardZoneSetting';
import { AboutPanel } from '../update/AboutPanel';
import { CONNECTION_LABELS } from '../shell/connectionLabel';
import { AlarmSoundPanel } from './AlarmSoundPanel';
import { CommandText } from './CommandText';
import { DataAdministration } from './DataAdministration';
import { DataManager } from './DataManager';
import { DesktopConnection } from './DesktopConnection';
import { DIRECT_ADMINISTRATION_POINTER } from './serverPlace';
import { SystemHealthPanel } from './SystemHealthView';

const MODE_LABELS = { desktop: 'Desktop app', 'relay-web': 'Relay Web (browser)', direct: 'Web client (browser)' } as const;

/** Where Administration would be, in a browser on the data API port: where it is instead. */
export function AdministrationPointer() {
  return (
    <section className="panel card" data-testid="administration-pointer" aria-labelledby="administration-pointer-title">
      <h2 id="administration-pointer-title">Administration</h2>
      <p className="muted"><CommandText text={DIRECT_ADMINISTRATION_POINTER} /></p>
    </section>
  );
}

export default function SettingsView() {
  const transport = useTransport();
  const state = useConnectionState();
  const [accent, setAccent] = useState(readAccent);
  return (
    <section className="view">
      <header className="view-header"><h1 className="view-title">Settings</h1></header>
      <div className="panel card" data-testid="settings-connection">
        <h2>Connection</h2>
        <dl className="kv">
          <dt>Mode</dt><dd data-testid="settings-mode">{MODE_LABELS[transport.mode ?? 'direct']}</dd>
          <dt>Server URL</dt><dd data-testid="settings-server-url">{transport.serverUrl}</dd>
          <dt>State</dt><dd>{CONNECTION_LABELS[state]}</dd>
          <dt>Passphrase</dt>
          {transport.mode === 'desktop' ? (
            <dd className="muted">Shown on the sign-in screen of a server-mode desktop; a client-mode desktop can remember it in the OS keyring.</dd>
          ) : (
            <dd className="muted">Not available to the web build — the browser never stores it. Ask the operator of the Relay server (<code>relay connection-info</code>).</dd>
          )}
          {transport.mode === 'desktop' && <DesktopConnection />}
        </dl>
      </div>
      {transport.mode === 'desktop' && <AboutPanel />}
      <SystemHealthPanel />
      {transport.mode === 'desktop' && <DataAdministration />}
      {transport.mode === 'desktop' || transport.mode === 'relay-web' ? <Administration /> : <AdministrationPointer />}
      <div className="panel card">
        <h2>Appearance</h2>
        <div className="row-wrap" role="radiogroup" aria-label="Accent color">
          {ACCENTS.map((a) => (
            <button key={a.id} type="button" role="radio" aria-checked={accent === a.color} data-testid={`accent-${a.id}`}
              className={accent === a.color ? 'accent-btn accent-on' : 'accent-btn'}
              onClick={() => { setAccent(a.color); applyAccent(a.color); try { localStorage.setItem(ACCENT_KEY, a.id); } catch { /* storage off */ } }}>
              <span className="swatch" style={{ background: a.color }} /> {a.label}
            </button>
          ))}
        </div>
      </div>
      <AlarmSoundPanel />
      <CardZoneSetting />
      <DashboardsSettings />
      <DataManager />
    </section>
  );
}
