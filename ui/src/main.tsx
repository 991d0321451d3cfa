// Browser entry point: builds the transport for where the renderer runs (createTransport: the
// Tauri desktop shell's bridge server URL, the Relay Web gateway or the direct data API) and
// mounts the App. In Relay Web mode, browser warnings/errors are forwarded to /web/api/logs.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { installAccent } from './lib/accent';
import { DesktopBridge, createTransport, detectDesktop } from './transport/desktop';
import { LogForwarder, installBrowserLogForwarding } from './transport/webLogs';
import './styles.css';

async function start(root: HTMLElement) {
  installAccent();
  // Desktop with nothing set up yet: the setup screen instead of the app.
  const bridge = DesktopBridge.of(window);
  const main = bridge !== null && !new URLSearchParams(window.location.search).has('popout');
  const desktop = main
    ? await detectDesktop(window).catch((e: unknown) => {
        console.error('relay desktop: connection_info failed', e);
        return null;
      })
    : undefined;
  if (bridge && desktop?.mode === 'setup') {
    // Its own chunk: a set-up desktop never needs it.
    const { DesktopSetup } = await import('./features/setup/DesktopSetup');
    createRoot(root).render(
      <StrictMode>
        <DesktopSetup bridge={bridge} />
      </StrictMode>,
    );
    return;
  }
  const transport = await createTransport({ window: window as unknown as Window & Record<string, unknown>, desktop });
  const session = transport.web;
  if (session) installBrowserLogForwarding(new LogForwarder((e) => session.sendLog(e)));
  createRoot(root).render(
    <StrictMode>
      <App transport={transport} search={window.location.search} />
    </StrictMode>,
  );
}

const root = document.getElementById('root');
if (!root) throw new Error('index.html is missing #root');
void start(root);
