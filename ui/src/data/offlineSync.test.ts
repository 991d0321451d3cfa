// OfflineSync over a fake shell with fake timers: the status poll (every 5 s, about every second
// while a replay runs, at once after a write), the single-flight replay with its reload at the
// end, resolving reviewed changes (a retry replays when reachable), and stop.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REPLAY_POLL_MS, STATUS_POLL_MS, OfflineSync } from './offlineSync';
import { fakeOffline } from './offlineTestkit';

function setup(reachable = true) {
  const f = fakeOffline();
  const reload = vi.fn();
  const sync = new OfflineSync(f.bridge, { reload, reachable: () => reachable });
  return { f, reload, sync };
}

const flush = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('OfflineSync', () => {
  it('polls the status every 5 s, about every second while a replay runs, and stops', async () => {
    const { f, sync } = setup();
    sync.start();
    sync.start();
    await flush();
    expect(f.bridge.status).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(STATUS_POLL_MS);
    expect(f.bridge.status).toHaveBeenCalledTimes(2);

    f.setStatus({ pendingCount: 4 });
    f.holdReplays();
    void sync.replay();
    await flush();
    const atStart = f.bridge.status.mock.calls.length;
    await vi.advanceTimersByTimeAsync(REPLAY_POLL_MS * 3);
    expect(f.bridge.status.mock.calls.length - atStart).toBe(3);
    expect(sync.getSnapshot().status).toMatchObject({ replaying: true, progress: [0, 4] });

    f.finishReplay({ total: 4, synced: 4, conflicts: 0, failed: 0, stopped: null });
    await flush();
    expect(sync.getSnapshot().status).toMatchObject({ replaying: false, lastReplay: { synced: 4 } });
    const afterReplay = f.bridge.status.mock.calls.length;
    await vi.advanceTimersByTimeAsync(STATUS_POLL_MS - 1);
    expect(f.bridge.status.mock.calls.length).toBe(afterReplay);

    sync.stop();
    const stopped = f.bridge.status.mock.calls.length;
    await vi.advanceTimersByTimeAsync(STATUS_POLL_MS * 4);
    expect(f.bridge.status).toHaveBeenCalledTimes(stopped);
  });

  it('one replay at a time: a second call joins the first; the collections reload once it ends', async () => {
    const { f, reload, sync } = setup();
    f.setStatus({ pendingCount: 2 });
    f.holdReplays();
    const a = sync.replay();
    const b = sync.replay();
    expect(a).toBe(b);
    await flush();
    expect(f.bridge.replay).toHaveBeenCalledTimes(1);
    expect(reload).not.toHaveBeenCalled();
    f.finishReplay({ total: 2, synced: 1, conflicts: 1, failed: 0, stopped: null });
    await expect(a).resolves.toEqual({ total: 2, synced: 1, conflicts: 1, failed: 0, stopped: null });
    expect(reload).toHaveBeenCalledTimes(1);
    // Once over, a new call starts a new replay.
    void sync.replay();
    await flush();
    expect(f.bridge.replay).toHaveBeenCalledTimes(2);
    sync.stop();
  });

  it('a refused replay keeps the reason, resolves null and still reloads; the next one clears it', async () => {
    const { f, reload, sync } = setup();
    f.holdReplays();
    const run = sync.replay();
    await flush();
    f.refuseReplay('Sign in to the Relay server to sync offline changes.');
    await expect(run).resolves.toBeNull();
    expect(sync.getSnapshot().replayError).toBe('Sign in to the Relay server to sync offline changes.');
    expect(reload).toHaveBeenCalledTimes(1);
    void sync.replay();
    expect(sync.getSnapshot().replayError).toBeNull();
    sync.stop();
  });

  it('after a write the pending count follows at once and the status is asked again', async () => {
    const { f, sync } = setup();
    sync.start();
    await flush();
    const before = f.bridge.status.mock.calls.length;
    await sync.mutate({ collection: 'contacts', action: 'create', data: { name: 'Bo' } });
    expect(sync.getSnapshot().status?.pendingCount).toBe(1);
    expect(f.bridge.status.mock.calls.length).toBe(before + 1);
    sync.stop();
  });

  it('on connect: replays only when something is queued; a reconnect with nothing queued just reloads', async () => {
    const { f, reload, sync } = setup();
    await sync.connected(false);
    expect(f.bridge.replay).not.toHaveBeenCalled();
    expect(reload).not.toHaveBeenCalled();
    await sync.connected(true);
    expect(reload).toHaveBeenCalledTimes(1);
    f.setStatus({ pendingCount: 1 });
    await sync.connected(true);
    expect(f.bridge.replay).toHaveBeenCalledTimes(1);
    expect(reload).toHaveBeenCalledTimes(2);
    sync.stop();
  });

  it('resolving: keep-server reloads; a retry replays at once when reachable, waits when not', async () => {
    const online = setup(true);
    await online.sync.resolve('tok', 'server');
    expect(online.f.bridge.resolveChange).toHaveBeenCalledWith('tok', 'server', undefined);
    expect(online.reload).toHaveBeenCalledTimes(1);
    expect(online.f.bridge.replay).not.toHaveBeenCalled();
    await online.sync.resolve('tok2', 'retry', { name: 'Ann D' });
    await flush();
    expect(online.f.bridge.resolveChange).toHaveBeenLastCalledWith('tok2', 'retry', { name: 'Ann D' });
    expect(online.f.bridge.replay).toHaveBeenCalledTimes(1);
    online.sync.stop();

    const away = setup(false);
    await away.sync.resolve('tok', 'retry');
    expect(away.f.bridge.replay).not.toHaveBeenCalled();
    expect(away.reload).toHaveBeenCalledTimes(1);
    away.sync.stop();
  });
});
