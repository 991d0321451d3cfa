// A fake desktop shell for the update tests: `window.__TAURI__.core.invoke` answering the six
// update commands like app/desktop/src/update_cmd.rs (snapshots in camelCase, refusals as
// `{ code, message }`, `rateLimited` with its seconds), driven through the real DesktopBridge.
// The fake follows the updater's state machine one explicit step at a time; `advance` moves a
// running download on by some bytes. `managed` makes Restart answer a hand-off to the launcher
// (`handedOff: true`), as a launcher-managed runtime does; otherwise it answers as an unmanaged
// installation. Timers are manual: `fire()` runs the scheduled poll.
import { DesktopBridge } from '../../transport/desktop';
import type { Timers } from './updateController';

export const MiB = 1024 * 1024;
export const TOTAL = 40 * MiB;

type Phase = 'idle' | 'available' | 'downloading' | 'downloaded' | 'preparing' | 'prepared' | 'error';

export function fakeUpdaterShell(opts: { updater?: boolean; managed?: boolean } = {}) {
  const s = { phase: 'idle' as Phase, latest: null as string | null, installable: true, done: 0, failure: null as string | null, checks: 0 };
  const calls: string[] = [];
  const refuse: Record<string, { code: string; message: unknown }> = {};
  const snapshot = () => ({
    phase: s.phase,
    currentVersion: '0.1.0',
    latestVersion: s.latest,
    installable: s.latest !== null && s.installable,
    downloadedBytes: s.done,
    totalBytes: s.latest ? TOTAL : null,
    failureCode: s.failure,
  });
  const invalid = (message: string) => ({ code: 'invalid', message });
  const handlers: Record<string, () => unknown> = {
    update_status: () => snapshot(),
    update_check: () => {
      s.checks++;
      if (s.phase === 'idle') Object.assign(s, { phase: 'available', latest: '0.2.0' });
      return snapshot();
    },
    update_download: () => {
      if (!(s.phase === 'available' || s.phase === 'error') || !s.installable) throw invalid('No installable update is available to download.');
      Object.assign(s, { phase: 'downloading', done: 0, failure: null });
      return snapshot();
    },
    update_cancel: () => {
      if (s.phase !== 'downloading') throw invalid('No download is in progress.');
      Object.assign(s, { phase: 'available', done: 0 });
      return snapshot();
    },
    update_prepare: () => {
      if (s.phase !== 'downloaded') throw invalid('No downloaded update is waiting to be prepared.');
      s.phase = 'preparing';
      return snapshot();
    },
    update_restart: () => {
      if (s.phase !== 'prepared') throw invalid('No prepared update is waiting for a restart.');
      return { version: '0.2.0', commit: '0123456789abcdef0123456789abcdef01234567', executableSha256: '07'.repeat(32), handedOff: opts.managed === true };
    },
  };
  const invoke = async (cmd: string, args?: unknown): Promise<unknown> => {
    calls.push(args === undefined ? cmd : `${cmd} ${JSON.stringify(args)}`);
    if (opts.updater === false) throw { code: 'unavailable', message: 'Updates are not available in this window or on this installation.' };
    if (refuse[cmd]) throw refuse[cmd];
    const handler = handlers[cmd];
    if (!handler) throw { code: 'forbidden', message: 'not an update command' };
    return handler();
  };
  const bridge = DesktopBridge.of({ __TAURI__: { core: { invoke } } })!;
  return {
    bridge,
    state: s,
    calls,
    refuse,
    /** The running download receives `bytes` more (finishing at TOTAL). */
    advance(bytes: number) {
      s.done = Math.min(TOTAL, s.done + bytes);
      if (s.done === TOTAL) s.phase = 'downloaded';
    },
    finishPrepare() {
      s.phase = 'prepared';
    },
  };
}

export function manualTimers() {
  const pending: { run: () => void; ms: number }[] = [];
  const timers: Timers = {
    setTimeout: (run, ms) => {
      const t = { run, ms };
      pending.push(t);
      return t;
    },
    clearTimeout: (handle) => {
      const i = pending.indexOf(handle as (typeof pending)[number]);
      if (i >= 0) pending.splice(i, 1);
    },
  };
  return {
    timers,
    pending,
    /** The delay of the one scheduled poll. */
    nextDelay: () => (pending.length === 1 ? pending[0].ms : `${pending.length} timers`),
    /** Runs the scheduled poll and lets its answer arrive. */
    async fire() {
      const t = pending.shift();
      t?.run();
      await new Promise((r) => setTimeout(r, 0));
    },
  };
}
