// A paired laptop's Owner / Administrator actions (surface 'laptop') through the protected session
// only — a fake laptop session over the admin test shell, independent of the laptop transport: what
// each surface offers (`abilities`); an Administrator's Publisher assignment through `adminCommand`
// with the snapshot's authority revision, confirmed first and retried once (same revision) after a
// `passwordRequired` and the fresh-password confirmation; the Dynatrace settings through the same
// `adminCommand`; Set/Reset password and Pair device not started away from the server PC.
import { describe, expect, it } from 'vitest';
import { adminSnapshot, type AdminRole } from '../../transport/desktop';
import { AdminController, SERVER_PC_ONLY_MESSAGE } from './adminController';
import { abilities } from './adminModel';
import { DYNATRACE_REVISION, LOCK_AT, PASSWORD, PUB2_ID, PUB_ID, REVISION, fakeAdminShell, fakeInput, laptopSession, snapshotFixture } from './adminTestkit';
import { DynatraceController } from './dynatraceController';

const session = (role: AdminRole) => ({ username: role === 'owner' ? 'olivia' : role === 'administrator' ? 'adam' : 'pia', role, lockAtMs: LOCK_AT });

describe('abilities per surface', () => {
  const pete = adminSnapshot(snapshotFixture()).accounts.find((a) => a.id === PUB2_ID);

  it('local: everything the role may do', () => {
    expect(abilities(session('owner'))).toMatchObject({
      setPasswords: true, pairDevices: true, manageLogos: true, manageDynatrace: true, assignPublisher: true, transferOwnership: true,
    });
    expect(abilities(session('administrator'), 'local')).toMatchObject({ setPasswords: true, pairDevices: true, manageLogos: true });
  });

  for (const role of ['owner', 'administrator'] as const) {
    it(`laptop ${role}: the account, device and authority actions and Dynatrace; no password, pairing or logos`, () => {
      const can = abilities(session(role), 'laptop');
      expect(can).toMatchObject({ setPasswords: false, pairDevices: false, manageLogos: false, manageDynatrace: true, assignPublisher: true, verifyAudit: true });
      expect(can.transferOwnership).toBe(role === 'owner');
      expect(pete && can.manageAccount(pete)).toBe(true);
      expect(pete && can.manageDevices(pete)).toBe(true);
      expect(can.createKinds).toContain('publisher');
    });
  }

  it('web: no password, pairing, logos or Dynatrace; a Publisher may do none of it anywhere', () => {
    expect(abilities(session('owner'), 'web')).toMatchObject({ setPasswords: false, pairDevices: false, manageLogos: false, manageDynatrace: false });
    expect(abilities(session('publisher'), 'laptop')).toMatchObject({
      createKinds: [], setPasswords: false, pairDevices: false, assignPublisher: false, verifyAudit: false, manageDynatrace: false,
    });
  });
});

describe("a paired laptop's Administrator", () => {
  it('assigns the Publisher through adminCommand with the revision, once more after passwordRequired and the confirmation', async () => {
    const shell = fakeAdminShell({ role: 'administrator' });
    const laptop = laptopSession(shell.bridge);
    expect(laptop.surface).toBe('laptop');
    const ctl = new AdminController(laptop);
    await ctl.start();
    expect(ctl.getState()).toMatchObject({ phase: 'session', session: { username: 'adam', role: 'administrator' } });
    expect(ctl.getState().snapshot?.authority.revision).toBe(REVISION);

    shell.refuseNext('publisher.assign', { code: 'passwordRequired', message: 'Confirm your password.' });
    await ctl.request({ kind: 'assignPublisher', accountId: PUB2_ID });
    expect(ctl.getState().dialog).toMatchObject({ kind: 'confirm', confirmation: { title: 'Assign the Publisher?' } });
    expect(laptop.adminCommand.mock.calls.filter(([c]) => c === 'publisher.assign')).toEqual([]);
    await ctl.confirm();
    expect(ctl.getState().dialog).toEqual({ kind: 'freshPassword', error: null });

    const fresh = fakeInput(PASSWORD);
    ctl.fields.fresh.ref(fresh);
    const done = ctl.submitFreshPassword();
    expect(fresh.value).toBe('');
    await done;
    const assigns = laptop.adminCommand.mock.calls.filter(([c]) => c === 'publisher.assign');
    expect(assigns).toEqual([
      ['publisher.assign', { accountId: PUB2_ID }, REVISION],
      ['publisher.assign', { accountId: PUB2_ID }, REVISION],
    ]);
    const wire = { command: 'publisher.assign', payload: { accountId: PUB2_ID }, expectedRevision: REVISION };
    expect(shell.commands().filter((c) => c.command === 'publisher.assign')).toEqual([wire, wire]);
    expect(shell.invoke).toHaveBeenCalledWith('admin_confirm_password', { password: PASSWORD });
    const names = shell.names();
    expect(names.indexOf('admin_confirm_password')).toBeGreaterThan(names.indexOf('publisher.assign'));
    expect(names.indexOf('admin_confirm_password')).toBeLessThan(names.lastIndexOf('publisher.assign'));
    expect(ctl.getState()).toMatchObject({ dialog: null, message: { error: false } });
    expect(JSON.stringify(ctl.getState())).not.toContain(PASSWORD);
    ctl.stop();
  });

  it('a cancelled password prompt sends nothing more', async () => {
    const shell = fakeAdminShell({ role: 'administrator' });
    const ctl = new AdminController(laptopSession(shell.bridge));
    await ctl.start();
    shell.refuseNext('publisher.assign', { code: 'passwordRequired', message: 'Confirm your password.' });
    await ctl.request({ kind: 'assignPublisher', accountId: null });
    await ctl.confirm();
    expect(ctl.getState().dialog).toEqual({ kind: 'freshPassword', error: null });
    ctl.cancelDialog();
    expect(shell.commands().filter((c) => c.command === 'publisher.assign')).toHaveLength(1);
    expect(shell.names()).not.toContain('admin_confirm_password');
    expect(ctl.getState().snapshot?.authority.publisherAccountId).toBe(PUB_ID);
    ctl.stop();
  });

  it('reads the Dynatrace settings and tests the connection through the same adminCommand', async () => {
    const shell = fakeAdminShell({ role: 'administrator' });
    const laptop = laptopSession(shell.bridge);
    const ctl = new AdminController(laptop);
    await ctl.start();
    const dt = new DynatraceController(laptop, ctl);
    await dt.start();
    expect(dt.getState()).toMatchObject({ phase: 'ready', status: { revision: DYNATRACE_REVISION } });
    expect(laptop.adminCommand).toHaveBeenCalledWith('dynatrace.status', {}, null);
    await dt.testConnection();
    expect(laptop.adminCommand.mock.calls.map(([c]) => c)).toContain('dynatrace.testConnection');
    dt.stop();
    ctl.stop();
  });
});

describe('server-PC-only actions on a paired laptop', () => {
  it('Set/Reset password and Pair device are not started: no dialog, no command, the server-PC notice', async () => {
    const shell = fakeAdminShell({ role: 'owner' });
    const laptop = laptopSession(shell.bridge);
    const ctl = new AdminController(laptop);
    await ctl.start();
    const before = laptop.adminCommand.mock.calls.length;
    ctl.open({ kind: 'setPassword', accountId: PUB2_ID, error: null });
    expect(ctl.getState()).toMatchObject({ dialog: null, message: { text: SERVER_PC_ONLY_MESSAGE, error: true } });
    ctl.open({ kind: 'pair', accountId: PUB_ID });
    expect(ctl.getState().dialog).toBeNull();
    await ctl.request({ kind: 'resetPassword', accountId: PUB_ID });
    await ctl.request({ kind: 'pair', accountId: PUB_ID, label: 'Desk' });
    expect(ctl.getState().dialog).toBeNull();
    expect(laptop.adminCommand.mock.calls.length).toBe(before);
    // The other account actions run, signed by the laptop session; a new account's password is set on the server PC.
    await ctl.request({ kind: 'create', username: 'nina', displayName: 'Nina', accountKind: 'publisher' });
    expect(laptop.adminCommand).toHaveBeenCalledWith('accounts.create', { username: 'nina', displayName: 'Nina', kind: 'publisher' }, null);
    expect(ctl.getState().message).toEqual({
      text: 'Account nina created (inactive, no password yet). Set its password on the Relay server PC, then activate it.',
      error: false,
    });
    ctl.stop();
  });

  it('on the server PC the same requests open their dialogs as before', async () => {
    const shell = fakeAdminShell({ role: 'owner' });
    const ctl = new AdminController(shell.bridge);
    await ctl.start();
    ctl.open({ kind: 'setPassword', accountId: PUB2_ID, error: null });
    expect(ctl.getState().dialog).toEqual({ kind: 'setPassword', accountId: PUB2_ID, error: null });
    ctl.cancelDialog();
    ctl.open({ kind: 'pair', accountId: PUB_ID });
    expect(ctl.getState().dialog).toEqual({ kind: 'pair', accountId: PUB_ID });
    ctl.stop();
  });
});
