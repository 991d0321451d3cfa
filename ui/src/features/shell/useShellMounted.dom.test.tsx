// @vitest-environment jsdom
// The shell-mounted report with the real transports from createTransport, seen as Shell sees
// them (through the data layer's gated transport): the desktop main window's transport invokes
// `shell_mounted` exactly once however often the signed-in shell mounts (StrictMode's double
// effect, a remount after sign-out); a desktop popout and a browser (Relay Web or direct) never do.
import { StrictMode, act } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import '../../lib/domTest';
import { WriteGate } from '../../data/gate';
import { gatedTransport } from '../../data/store';
import { TransportProvider } from '../../transport/context';
import { createTransport } from '../../transport/desktop';
import type { PocketBaseTransport } from '../../transport/pocketbase';
import { json } from '../../transport/testkit';
import { useShellMounted } from './useShellMounted';


const SERVER = 'http://127.0.0.1:8090';
const opts = { storage: null, events: null };
let transports: PocketBaseTransport[] = [];

afterEach(() => {
  transports.forEach((t) => t.dispose());
  transports = [];
  vi.restoreAllMocks();
});

function shell(search = '') {
  const invoke = vi.fn(async (cmd: string) => {
    if (cmd === 'connection_info') return { mode: 'server', serverUrl: SERVER, passphraseAvailable: true, secretStorage: 'owner-only-file' };
    if (cmd === 'aux_session') return { serverUrl: SERVER, token: null };
    return null;
  });
  return { invoke, window: { location: { origin: 'tauri://localhost', search }, __TAURI__: { core: { invoke } } } };
}

function Mounted() {
  useShellMounted();
  return <p>shell</p>;
}

/**
 * Mounts the hook `times` times (each under StrictMode: effects run twice) and unmounts it,
 * behind the gated transport DataProvider gives the signed-in shell.
 */
async function mountShell(raw: PocketBaseTransport, times: number) {
  const transport = gatedTransport(raw, new WriteGate(() => true));
  for (let i = 0; i < times; i++) {
    const host = document.createElement('div');
    const root = createRoot(host);
    await act(async () => {
      root.render(
        <StrictMode>
          <TransportProvider transport={transport}>
            <Mounted />
          </TransportProvider>
        </StrictMode>,
      );
    });
    act(() => root.unmount());
  }
}

const mountedCalls = (invoke: ReturnType<typeof shell>['invoke']) => invoke.mock.calls.filter(([cmd]) => cmd === 'shell_mounted').length;

describe('shell_mounted', () => {
  it('the desktop main window reports the mount exactly once', async () => {
    const s = shell();
    const t = await createTransport({ window: s.window, options: opts });
    transports.push(t);
    expect(mountedCalls(s.invoke)).toBe(0);
    await mountShell(t, 2);
    expect(mountedCalls(s.invoke)).toBe(1);
    expect(s.invoke).toHaveBeenCalledWith('shell_mounted');
  });

  it('a refused report is only logged', async () => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    const s = shell();
    s.invoke.mockImplementation(async (cmd: string) => {
      if (cmd === 'connection_info') return { mode: 'client', serverUrl: SERVER, passphraseAvailable: false, secretStorage: 'os-secret-store' };
      if (cmd === 'shell_mounted') throw { code: 'forbidden', message: 'caller not allowed' };
      return null;
    });
    const t = await createTransport({ window: s.window, options: opts });
    transports.push(t);
    await mountShell(t, 1);
    await act(async () => { await Promise.resolve(); });
    expect(mountedCalls(s.invoke)).toBe(1);
    expect(err).toHaveBeenCalledWith('relay desktop: shell_mounted failed', expect.anything());
  });

  it('a desktop popout never reports', async () => {
    const s = shell('?popout=board');
    const t = await createTransport({ window: s.window, options: opts });
    transports.push(t);
    expect(t.shellMounted).toBeUndefined();
    await mountShell(t, 1);
    expect(mountedCalls(s.invoke)).toBe(0);
  });

  it('a browser never reports', async () => {
    const fetch = vi.fn(async (input: RequestInfo | URL) =>
      String(input).endsWith('/web/api/mode') ? json(200, { mode: 'relay-web', cleartextHttp: true }) : json(404, {}),
    );
    for (const w of [{ location: { origin: 'http://gw.local:8091' } }, { location: { origin: 'http://gw.local:8091' }, __TAURI__: {} }]) {
      const t = await createTransport({ window: w, fetch, options: opts });
      transports.push(t);
      expect(t.shellMounted).toBeUndefined();
      await mountShell(t, 1);
    }
    expect(fetch.mock.calls.map(([u]) => String(u))).toEqual(['http://gw.local:8091/web/api/mode', 'http://gw.local:8091/web/api/mode']);
  });
});
