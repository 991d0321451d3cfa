// The update flow against a fake shell through the real DesktopBridge: the state is read at
// start and polled every minute, every half second while a download or preparation runs (so
// the bytes move); each button sends exactly its own command and no other step follows;
// Check → Download (progress) → Cancel → Download → Prepare → Restart, which shows what was
// verified and that this unmanaged installation cannot restart into it, or, when managed, the
// hand-off to the launcher after which no command is sent; refusals in words; no updater → unavailable;
// stop ends the polling.
import { describe, expect, it } from 'vitest';
import { RESTART_UNMANAGED, restartHandedOffText, UPDATE_FAST_POLL_MS, UPDATE_SLOW_POLL_MS, downloadProgress } from './updateModel';
import { UpdateController } from './updateController';
import { MiB, fakeUpdaterShell, manualTimers } from './updateTestkit';

async function started(opts: { updater?: boolean; managed?: boolean } = {}) {
  const shell = fakeUpdaterShell(opts);
  const clock = manualTimers();
  const ctl = new UpdateController(shell.bridge, clock.timers);
  await ctl.start();
  return { shell, clock, ctl };
}

/** Check → download (all bytes) → prepare (finished): the offered release is prepared. */
async function prepared({ shell, clock, ctl }: Awaited<ReturnType<typeof started>>) {
  await ctl.check();
  await ctl.download();
  shell.advance(40 * MiB);
  await clock.fire();
  await ctl.prepare();
  shell.finishPrepare();
  await clock.fire();
  expect(ctl.getState().snapshot?.phase).toBe('prepared');
}

describe('UpdateController', () => {
  it('reads the state at start and asks again every minute, without checking by itself', async () => {
    const { shell, clock, ctl } = await started();
    expect(ctl.getState().snapshot?.phase).toBe('idle');
    expect(clock.nextDelay()).toBe(UPDATE_SLOW_POLL_MS);
    await clock.fire();
    expect(shell.calls).toEqual(['update_status', 'update_status']);
    expect(shell.state.checks).toBe(0);
  });

  it('walks check → download with progress → cancel → download → prepare → restart, one command per button', async () => {
    const { shell, clock, ctl } = await started();
    shell.calls.length = 0;

    await ctl.check();
    expect(shell.calls).toEqual(['update_check', 'update_status']);
    expect(ctl.getState()).toMatchObject({ checked: true, snapshot: { phase: 'available', latestVersion: '0.2.0' } });

    shell.calls.length = 0;
    await ctl.download();
    expect(shell.calls).toEqual(['update_download', 'update_status']);
    expect(clock.nextDelay()).toBe(UPDATE_FAST_POLL_MS);
    shell.advance(10 * MiB);
    await clock.fire();
    expect(downloadProgress(ctl.getState().snapshot)).toEqual({ percent: 25, text: '10.0 MiB of 40.0 MiB' });

    await ctl.cancel();
    expect(ctl.getState().snapshot).toMatchObject({ phase: 'available', downloadedBytes: 0 });
    expect(clock.nextDelay()).toBe(UPDATE_SLOW_POLL_MS);

    await ctl.download();
    shell.advance(40 * MiB);
    await clock.fire();
    expect(ctl.getState().snapshot?.phase).toBe('downloaded');
    expect(clock.nextDelay()).toBe(UPDATE_SLOW_POLL_MS);

    shell.calls.length = 0;
    await ctl.prepare();
    expect(shell.calls).toEqual(['update_prepare', 'update_status']);
    expect(clock.nextDelay()).toBe(UPDATE_FAST_POLL_MS);
    shell.finishPrepare();
    await clock.fire();
    expect(ctl.getState().snapshot?.phase).toBe('prepared');

    shell.calls.length = 0;
    await ctl.restart();
    expect(shell.calls).toEqual(['update_restart', 'update_status']);
    expect(ctl.getState().restart).toMatchObject({ version: '0.2.0', handedOff: false });
    expect(ctl.getState().message?.text).toContain(RESTART_UNMANAGED);
    expect(ctl.getState().snapshot?.phase).toBe('prepared');
  });

  it('on a managed installation shows the hand-off and sends nothing more while the app exits', async () => {
    const run = await started({ managed: true });
    const { shell, ctl } = run;
    await prepared(run);

    shell.calls.length = 0;
    await ctl.restart();
    expect(shell.calls).toEqual(['update_restart', 'update_status']);
    expect(ctl.getState().restart).toMatchObject({ version: '0.2.0', handedOff: true });
    expect(ctl.getState().message?.text).toContain(restartHandedOffText('0.2.0'));
    expect(ctl.getState().message?.text).not.toContain(RESTART_UNMANAGED);

    shell.calls.length = 0;
    await ctl.restart();
    await ctl.check();
    expect(shell.calls.filter((c) => c !== 'update_status')).toEqual([]);
  });

  it('sends no argument with any command', async () => {
    const { shell, ctl } = await started();
    await ctl.check();
    await ctl.download();
    await ctl.cancel();
    expect(shell.calls.every((c) => !c.includes(' '))).toBe(true);
  });

  it('shows a refusal in words and keeps the state', async () => {
    const { shell, ctl } = await started();
    await ctl.download();
    expect(ctl.getState().message).toEqual({ text: 'No installable update is available to download.', error: true });
    shell.refuse.update_check = { code: 'rateLimited', message: 42 };
    await ctl.check();
    expect(ctl.getState().message).toEqual({ text: 'Relay checked for updates moments ago. Try again in 42 s.', error: true });
    expect(ctl.getState()).toMatchObject({ busy: null, checked: false, snapshot: { phase: 'idle' } });
  });

  it('runs one command at a time', async () => {
    const { shell, ctl } = await started();
    shell.calls.length = 0;
    const first = ctl.check();
    expect(ctl.getState().busy).toBe('check');
    await ctl.download();
    await first;
    expect(shell.calls.filter((c) => c !== 'update_status')).toEqual(['update_check']);
  });

  it('says so when this installation has no updater', async () => {
    const { ctl } = await started({ updater: false });
    expect(ctl.getState()).toMatchObject({ snapshot: null, unavailable: 'Updates are not available in this window or on this installation.' });
  });

  it('stops polling when stopped', async () => {
    const { clock, ctl } = await started();
    ctl.stop();
    expect(clock.pending).toHaveLength(0);
    await ctl.check();
    expect(ctl.getState().snapshot).toBeNull();
  });
});
