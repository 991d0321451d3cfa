// Opening a Dynatrace dashboard and clearing the Dynatrace session through the Transport: the
// desktop main window uses the shell's `open_dynatrace { url }` (resolving with the window label)
// and `clear_dynatrace_session` (no payload); a popout refuses (main window only); the browser
// builds open a new tab with noopener,noreferrer and have no clearDynatraceSession.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { gatedTransport } from '../data/store';
import { DesktopBridge, createTransport } from './desktop';
import { PocketBaseTransport } from './pocketbase';
import { FakeEventSource } from './testkit';

const SERVER = 'http://127.0.0.1:8090';
const DASH = 'https://abc12345.live.dynatrace.com/#dashboard;id=1';

function tauriWindow(invoke: (cmd: string, args?: Record<string, unknown>) => Promise<unknown>, search = '') {
  return { location: { origin: 'tauri://localhost', search }, __TAURI__: { core: { invoke: vi.fn(invoke) } } };
}

function shell(extra: (cmd: string, args?: Record<string, unknown>) => unknown = () => undefined) {
  const seen: [string, Record<string, unknown> | undefined][] = [];
  const w = tauriWindow(async (cmd, args) => {
    if (cmd === 'connection_info') return { mode: 'server', serverUrl: SERVER, passphraseAvailable: true, secretStorage: 'owner-only-file' };
    if (cmd === 'share_session') return null;
    if (cmd === 'aux_session') return { serverUrl: SERVER, token: null };
    seen.push([cmd, args]);
    const r = extra(cmd, args);
    if (r === undefined) throw { code: 'forbidden', message: 'unexpected command' };
    return r;
  });
  return { w, seen };
}

const opts = { storage: null, events: null };
let current: PocketBaseTransport | undefined;

beforeEach(() => {
  FakeEventSource.instances = [];
  vi.stubGlobal('EventSource', FakeEventSource);
});

afterEach(() => {
  current?.dispose();
  current = undefined;
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('DesktopBridge Dynatrace commands', () => {
  it('open_dynatrace { url } resolves with the window label; clear_dynatrace_session has no payload', async () => {
    const { w, seen } = shell((cmd) => (cmd === 'open_dynatrace' ? 'dynatrace-1' : cmd === 'clear_dynatrace_session' ? null : undefined));
    const bridge = DesktopBridge.of(w)!;
    expect(await bridge.openDynatrace(DASH)).toBe('dynatrace-1');
    await bridge.clearDynatraceSession();
    expect(seen).toEqual([
      ['open_dynatrace', { url: DASH }],
      ['clear_dynatrace_session', undefined],
    ]);
  });

  it('surfaces a refusal with the shell message', async () => {
    const { w } = shell((cmd) => {
      if (cmd === 'open_dynatrace') throw { code: 'invalid', message: 'That URL is not a Dynatrace URL.' };
      return undefined;
    });
    await expect(DesktopBridge.of(w)!.openDynatrace('https://evil.example/')).rejects.toThrow('That URL is not a Dynatrace URL.');
    await expect(DesktopBridge.of(w)!.clearDynatraceSession()).rejects.toThrow('unexpected command');
  });
});

describe('Transport.openDynatraceDashboard / clearDynatraceSession', () => {
  it('desktop main window: through the shell', async () => {
    const { w, seen } = shell((cmd) => (cmd === 'open_dynatrace' ? 'dynatrace-7' : cmd === 'clear_dynatrace_session' ? null : undefined));
    const t = (current = await createTransport({ window: w, options: opts }));
    expect(t.mode).toBe('desktop');
    expect(await t.openDynatraceDashboard(DASH)).toBe('dynatrace-7');
    expect(t.clearDynatraceSession).toBeTypeOf('function');
    await t.clearDynatraceSession!();
    expect(seen).toEqual([
      ['open_dynatrace', { url: DASH }],
      ['clear_dynatrace_session', undefined],
    ]);
    // The gated transport the data layer hands out passes both through.
    const gated = gatedTransport(t, { refusal: () => null, offline: false } as never);
    expect(await gated.openDynatraceDashboard(DASH)).toBe('dynatrace-7');
    await gated.clearDynatraceSession!();
    expect(seen).toHaveLength(4);
  });

  it('desktop popout: refused without asking the shell (open_dynatrace is main-window only)', async () => {
    const { w, seen } = shell();
    const t = (current = await createTransport({ window: w, options: opts }));
    const popout = tauriWindow(w.__TAURI__.core.invoke as never, '?popout=notes');
    const p = await createTransport({ window: popout, options: opts });
    try {
      expect(p.mode).toBe('desktop');
      await expect(p.openDynatraceDashboard(DASH)).rejects.toThrow('Open Dynatrace dashboards from the main Relay window.');
      expect(p.clearDynatraceSession).toBeUndefined();
      expect(seen).toEqual([]);
    } finally {
      p.dispose();
    }
    expect(t.mode).toBe('desktop');
  });

  it('browser: a new tab with noopener,noreferrer; no session to clear', async () => {
    const open = vi.fn(() => null);
    const t = (current = new PocketBaseTransport({ origin: 'http://relay.test', ...opts, opener: { open } }));
    expect(await t.openDynatraceDashboard(DASH)).toBeNull();
    expect(open).toHaveBeenCalledWith(DASH, '_blank', 'noopener,noreferrer');
    expect(t.clearDynatraceSession).toBeUndefined();
    expect(gatedTransport(t, { refusal: () => null, offline: false } as never).clearDynatraceSession).toBeUndefined();
  });

  it('browser without a window: refuses', async () => {
    const t = (current = new PocketBaseTransport({ origin: 'http://relay.test', ...opts, opener: null }));
    await expect(t.openDynatraceDashboard(DASH)).rejects.toThrow(/cannot open/);
  });
});
