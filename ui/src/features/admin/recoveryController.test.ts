// The Recovery section's flow against the fake server-mode shell (through the real DesktopBridge
// and the real AdminController): the retained builds read on start; "Roll back" asks for the
// confirmation first and then sends only that build's id to recovery_rollback; a build that
// cannot read today's data, a pending candidate or a waiting rollback offer nothing;
// `passwordRequired` asks for the password and retries once; `locked` goes back to the sign-in
// form; another refusal is shown and the list read again; only the Owner on the server PC has the
// section; an unmanaged installation offers nothing.
import { describe, expect, it } from 'vitest';
import type { AdminRole } from '../../transport/desktop';
import { recoveryStatus } from '../../transport/desktop';
import { AdminController } from './adminController';
import { LOCKED_MESSAGE, abilities } from './adminModel';
import { PASSWORD, fakeAdminShell, fakeInput } from './adminTestkit';
import { RecoveryController, repairable, rollbackBlocked, showsRecovery } from './recoveryController';

async function section(opts: { role?: AdminRole } = {}) {
  const shell = fakeAdminShell({ role: opts.role });
  const admin = new AdminController(shell.bridge);
  await admin.start();
  const recovery = new RecoveryController(shell.bridge, admin);
  await recovery.start();
  return { shell, admin, recovery };
}

const rollbackCalls = (shell: ReturnType<typeof fakeAdminShell>) => shell.invoke.mock.calls.filter(([c]) => c === 'recovery_rollback');

describe('Recovery section', () => {
  it('lists the running and the retained builds and rolls back to one after the confirmation', async () => {
    const { shell, recovery } = await section();
    const status = recovery.getState().status!;
    expect(status.current?.version).toBe('1.0.0');
    expect(status.predecessors.map((b) => [b.version, rollbackBlocked(status, b)])).toEqual([
      ['0.9.0', null],
      ['0.8.0', 'Cannot read today’s data format'],
    ]);
    recovery.askRollback(status.predecessors[1]);
    expect(recovery.getState().confirming).toBeNull();
    recovery.askRollback(status.predecessors[0]);
    expect(recovery.getState().confirming?.build).toBe('v0-9-0-bbbbbbbb');
    expect(rollbackCalls(shell)).toEqual([]);
    await recovery.confirmRollback();
    expect(rollbackCalls(shell)).toEqual([['recovery_rollback', { build: 'v0-9-0-bbbbbbbb' }]]);
    expect(shell.state.rolledBackTo).toBe('v0-9-0-bbbbbbbb');
    expect(recovery.getState().message).toEqual({ text: 'Relay is restarting into v0.9.0…', error: false });
    recovery.askRollback(status.predecessors[0]);
    expect(recovery.getState().confirming).toBeNull();
  });

  it('asks for the password on passwordRequired and retries once', async () => {
    const { shell, admin, recovery } = await section();
    shell.refuseNext('recovery_rollback', { code: 'passwordRequired', message: 'Confirm your password to continue.' });
    recovery.askRollback(recovery.getState().status!.predecessors[0]);
    await recovery.confirmRollback();
    expect(admin.getState().dialog).toEqual({ kind: 'freshPassword', error: null });
    admin.fields.fresh.ref(fakeInput(PASSWORD));
    await admin.submitFreshPassword();
    expect(rollbackCalls(shell)).toHaveLength(2);
    expect(shell.state.rolledBackTo).toBe('v0-9-0-bbbbbbbb');
  });

  it('goes back to the sign-in form on locked, and shows other refusals', async () => {
    const { shell, admin, recovery } = await section();
    shell.refuseNext('recovery_rollback', { code: 'invalid', message: 'An update is being installed; wait until it settles.' });
    recovery.askRollback(recovery.getState().status!.predecessors[0]);
    await recovery.confirmRollback();
    expect(recovery.getState().message).toEqual({
      text: 'The rollback was not started: An update is being installed; wait until it settles.',
      error: true,
    });
    shell.refuseNext('recovery_rollback', { code: 'locked', message: 'locked' });
    recovery.askRollback(recovery.getState().status!.predecessors[0]);
    await recovery.confirmRollback();
    expect(admin.getState().phase).toBe('signedOut');
    expect(admin.getState().message?.text).toBe(LOCKED_MESSAGE);
    expect(shell.state.rolledBackTo).toBeNull();
  });

  it('offers nothing while an update or a rollback is pending, or on an unmanaged installation', () => {
    const base = { current: { build: 'v1-0-0-aaaaaaaa', version: '1.0.0', commit: 'a'.repeat(40), promotedAtMs: 2, rollback: 'current' } };
    const retained = { build: 'v0-9-0-bbbbbbbb', version: '0.9.0', commit: 'b'.repeat(40), promotedAtMs: 1, rollback: 'available' };
    const pending = recoveryStatus({ managed: true, overview: { ...base, predecessors: [retained], candidatePending: true } });
    expect(rollbackBlocked(pending, pending.predecessors[0])).toBe('An update is being installed');
    const waiting = recoveryStatus({ managed: true, overview: { ...base, predecessors: [retained], rollbackRequested: true } });
    expect(rollbackBlocked(waiting, waiting.predecessors[0])).toBe('A rollback is waiting for the restart');
    expect(recoveryStatus({ managed: false, overview: { ...base, predecessors: [retained] } })).toMatchObject({ managed: false, predecessors: [] });
    const odd = recoveryStatus({ managed: true, overview: { ...base, predecessors: [{ ...retained, build: '../x' }, { ...retained, rollback: 'yes' }] } });
    expect(odd.predecessors).toEqual([{ ...retained, rollback: 'marker_unusable' }]);
  });

  it('belongs to the Owner on the server PC only', () => {
    const session = (role: AdminRole) => ({ username: 'u', role, lockAtMs: 0 });
    expect(showsRecovery({ phase: 'session', session: session('owner') })).toBe(true);
    expect(showsRecovery({ phase: 'session', session: session('administrator') })).toBe(false);
    expect(showsRecovery({ phase: 'session', session: session('publisher') })).toBe(false);
    expect(abilities(session('owner'), 'laptop').manageRecovery).toBe(false);
    expect(abilities(session('owner'), 'web').manageRecovery).toBe(false);
  });
});

describe('Repair', () => {
  it('asks first, sends only the build id, and reads the list again after', async () => {
    const { shell, recovery } = await section();
    const status = recovery.getState().status!;
    recovery.askRepair(status.predecessors[0]);
    expect(recovery.getState().confirmingRepair?.build).toBe('v0-9-0-bbbbbbbb');
    expect(shell.invoke.mock.calls.filter(([c]) => c === 'recovery_repair')).toEqual([]);
    const reads = shell.invoke.mock.calls.filter(([c]) => c === 'recovery_status').length;
    await recovery.confirmRepair();
    expect(shell.invoke.mock.calls.filter(([c]) => c === 'recovery_repair')).toEqual([['recovery_repair', { build: 'v0-9-0-bbbbbbbb' }]]);
    expect(recovery.getState().message).toEqual({ text: 'v0.9.0 was repaired from its release.', error: false });
    expect(recovery.getState().repairing).toBeNull();
    expect(shell.invoke.mock.calls.filter(([c]) => c === 'recovery_status').length).toBeGreaterThan(reads);
  });

  it('shows the shell’s refusal and offers no repair for an unprovable record', async () => {
    const { shell, recovery } = await section();
    shell.refuseNext('recovery_repair', { code: 'invalid', message: 'The downloaded release does not match this build’s record; nothing was changed.' });
    recovery.askRepair(recovery.getState().status!.current!);
    await recovery.confirmRepair();
    expect(recovery.getState().message?.text).toBe('The repair did not complete: The downloaded release does not match this build’s record; nothing was changed.');
    const base = { current: { build: 'v1-0-0-aaaaaaaa', version: '1.0.0', commit: 'a'.repeat(40), promotedAtMs: 2, rollback: 'current' } };
    const broken = recoveryStatus({ managed: true, overview: { ...base, predecessors: [{ build: 'v0-9-0-bbbbbbbb', version: '', commit: '', promotedAtMs: 1, rollback: 'marker_unusable' }] } });
    expect(repairable(broken, broken.predecessors[0])).toBe(false);
    expect(repairable(broken, broken.current!)).toBe(true);
  });
});
