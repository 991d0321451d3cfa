// Browser entry point: detects the mode (GET /web/api/mode: Relay Web gateway or the direct
// data API), builds the same-origin PocketBase transport and mounts the App. In Relay Web mode,
// browser warnings/errors are forwarded to /web/api/logs.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { installAccent } from './lib/accent';
import { PocketBaseTransport } from './transport/pocketbase';
import { LogForwarder, installBrowserLogForwarding } from './transport/webLogs';
import { detectWebMode } from './transport/webSession';
import './styles.css';

async function start(root: HTMLElement) {
  installAccent();
  const origin = window.location.origin;
  const web = await detectWebMode(origin);
  const transport = new PocketBaseTransport({ origin, web });
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
