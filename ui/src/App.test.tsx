// Markup smoke tests (server-rendered, no DOM needed): the sign-in screen and
// the shell expose the agreed data-testid hooks.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { App, popoutRoute } from './App';
import { ToastProvider } from './components/Toasts';
import { DataProvider } from './data/store';
import { Shell } from './features/shell/Shell';
import { TABS } from './features/shell/tabs';
import { TransportProvider } from './transport/context';
import type { Transport } from './transport/types';

const unused = () => Promise.reject(new Error('not used in markup tests'));
const fakeTransport: Transport = {
  signIn: unused,
  signOut: () => {},
  list: unused,
  getFullList: unused,
  create: unused,
  update: unused,
  remove: unused,
  subscribe: unused,
  onStateChange: () => () => {},
  health: unused,
  heartbeat: unused,
  presence: unused,
  importRecords: unused,
  readSpreadsheet: unused,
  prepareAlertImage: unused,
  serviceStatus: unused,
  refreshServiceStatus: unused,
  radar: unused,
  refreshRadar: unused,
  brandingLogo: unused,
  wikiSearch: unused,
  wikiPdf: unused,
  wikiCover: unused,
  syncServers: unused,
  openDynatraceDashboard: unused,
  authIdentity: () => null,
  serverUrl: 'http://relay.test',
};

describe('App markup', () => {
  it('starts on the sign-in screen with a hidden passphrase field', () => {
    const html = renderToStaticMarkup(<App transport={fakeTransport} />);
    expect(html).toContain('data-testid="signin-passphrase"');
    expect(html).toMatch(/data-testid="signin-passphrase"[^>]*type="password"|type="password"[^>]*data-testid="signin-passphrase"/);
    expect(html).toContain('data-testid="signin-submit"');
    expect(html).not.toContain('data-testid="signin-error"');
    expect(html).not.toContain('data-testid="status-connection"');
  });

  it('renders the shell with every tab, the status bar, and Compose first', () => {
    const html = renderToStaticMarkup(
      <TransportProvider transport={fakeTransport}>
        <ToastProvider>
          <DataProvider>
            <Shell onSignOut={() => {}} />
          </DataProvider>
        </ToastProvider>
      </TransportProvider>,
    );
    const navIds = [...html.matchAll(/data-testid="nav-([a-z]+)"/g)].map((m) => m[1]);
    expect(navIds).toEqual(['compose', 'alerts', 'oncall', 'notes', 'status', 'people', 'servers', 'radar', 'problems', 'knowledge', 'settings']);
    expect(TABS.map((t) => t.label)).toEqual([
      'Compose', 'Alerts', 'On-Call', 'Notes', 'Status', 'People', 'Servers', 'Radar', 'Problems', 'Knowledge', 'Settings',
    ]);
    expect(html).toMatch(/data-testid="status-connection"[^>]*>Connecting…</);
    expect(html).toContain('<h1 class="view-title">Compose</h1>');
    expect(html).toContain('data-testid="global-search"');
    expect(html).toContain('data-testid="client-count"');
    // Alarm sound: on by default, not yet armed (no gesture during a render); no loss banner while connecting.
    expect(html).toMatch(/data-testid="sound-toggle" data-armed="false" aria-pressed="true"[^>]*>.*Sound on<\/button>/);
    expect(html).not.toContain('data-testid="connection-banner"');
  });

  it('Relay Web mode shows the cleartext-HTTP warning on sign-in and in the status bar', () => {
    const web: Transport = { ...fakeTransport, mode: 'relay-web' };
    expect(renderToStaticMarkup(<App transport={fakeTransport} />)).not.toContain('cleartext-warning');
    expect(renderToStaticMarkup(<App transport={web} />)).toMatch(/data-testid="signin-cleartext-warning"[^>]*>⚠ Relay Web uses unencrypted HTTP — LAN\/VPN only/);
    const shell = renderToStaticMarkup(
      <TransportProvider transport={web}>
        <ToastProvider>
          <DataProvider>
            <Shell onSignOut={() => {}} />
          </DataProvider>
        </ToastProvider>
      </TransportProvider>,
    );
    expect(shell).toContain('data-testid="cleartext-warning"');
  });

  it('recognises the read-only board popout route', () => {
    expect(popoutRoute('?popout=board')).toBe('board');
    expect(popoutRoute('?popout=popout/board')).toBe('board');
    expect(popoutRoute('')).toBeNull();
  });
});
