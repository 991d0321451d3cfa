// The administration flow against a fake server-mode shell (through the real DesktopBridge):
// status → sign-in → session with the snapshot; each action's exact admin_command (payload and
// authority revision) and the snapshot re-read after it; confirmation before destructive actions;
// passwordRequired → password prompt → admin_confirm_password → one retry; locked and the idle
// lock (30-second poll) → the sign-in form with the locked message; rate limits; and every
// password field cleared on submit, cancel, failure, lock and unmount — no password in the state.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AdminController } from './adminController';
import { LOCKED_MESSAGE } from './adminModel';
import { ADMIN_ID, LEAKS, LOCK_AT, OWNER_ID, PASSWORD, PUB2_ID, PUB_ID, REVISION, fakeAdminShell, fakeInput } from './adminTestkit';
import { SecretSlot } from './secretSlot';

async function signedIn(opts: Parameters<typeof fakeAdminShell>[0] = {}) {
  const shell = fakeAdminShell(opts);
  const ctl = new AdminController(shell.bridge);
  await ctl.start();
  return { shell, ctl };
}

/** Every password field bound to a fake input holding text. */
function typedEverywhere(ctl: AdminController) {
  const inputs = { signIn: fakeInput('typed-1'), fresh: fakeInput('typed-2'), newPassword: fakeInput('typed-3') };
  ctl.fields.signIn.ref(inputs.signIn);
  ctl.fields.fresh.ref(inputs.fresh);
  ctl.fields.newPassword.ref(inputs.newPassword);
  return () => [inputs.signIn.value, inputs.fresh.value, inputs.newPassword.value];
}

const stateText = (ctl: AdminController) => JSON.stringify(ctl.getState());

afterEach(() => vi.useRealTimers());

describe('sign-in', () => {
  it('shows nothing to sign in to outside server mode', async () => {
    const { ctl } = await signedIn({ available: false });
    expect(ctl.getState().phase).toBe('unavailable');
  });

  it('signs in with the typed password, clears the field on submit and loads the snapshot', async () => {
    const { shell, ctl } = await signedIn({ signedIn: false });
    expect(ctl.getState().phase).toBe('signedOut');
    const input = fakeInput(PASSWORD);
    ctl.fields.signIn.ref(input);
    const pending = ctl.signIn(' olivia ');
    expect(input.value).toBe('');
    await pending;
    expect(shell.invoke).toHaveBeenCalledWith('admin_sign_in', { username: 'olivia', password: PASSWORD });
    const s = ctl.getState();
    expect(s.phase).toBe('session');
    expect(s.session).toEqual({ username: 'olivia', role: 'owner', lockAtMs: LOCK_AT });
    expect(s.snapshot?.accounts.map((a) => a.id)).toEqual([OWNER_ID, ADMIN_ID, PUB_ID, PUB2_ID]);
    expect(shell.commands()).toContainEqual({ command: 'admin.snapshot', payload: {}, expectedRevision: null });
    expect(stateText(ctl)).not.toContain(PASSWORD);
    for (const leak of LEAKS) expect(stateText(ctl)).not.toContain(leak);
  });

  it('shows a refusal without the password and clears the field on failure', async () => {
    const { shell, ctl } = await signedIn({ signedIn: false });
    shell.refuseNext('admin_sign_in', { code: 'rejected', message: 'No account olivia with password wrong-pass-9.' });
    const input = fakeInput('wrong-pass-9');
    ctl.fields.signIn.ref(input);
    await ctl.signIn('olivia');
    expect(input.value).toBe('');
    expect(ctl.getState()).toMatchObject({ phase: 'signedOut', message: { error: true } });
    expect(ctl.getState().message?.text).toBe('No account olivia with password •••.');
    expect(stateText(ctl)).not.toContain('wrong-pass-9');
  });

  it('tells how long to wait when rate limited', async () => {
    const { shell, ctl } = await signedIn({ signedIn: false });
    shell.refuseNext('admin_sign_in', { code: 'rateLimited', message: 30 });
    const input = fakeInput('x');
    ctl.fields.signIn.ref(input);
    await ctl.signIn('olivia');
    expect(input.value).toBe('');
    expect(ctl.getState().message).toEqual({ text: 'Too many attempts. Wait 30 seconds and try again.', error: true });
  });

  it('asks for both fields before calling the bridge', async () => {
    const { shell, ctl } = await signedIn({ signedIn: false });
    await ctl.signIn('olivia');
    expect(ctl.getState().message?.text).toBe('Enter your username and password.');
    expect(shell.names()).not.toContain('admin_sign_in');
  });
});

describe('actions', () => {

  it.each([
    ['create', { kind: 'create', username: 'pam', displayName: 'Pam', accountKind: 'publisher' }, { command: 'accounts.create', payload: { username: 'pam', displayName: 'Pam', kind: 'publisher' }, expectedRevision: null }, false],
    ['rename', { kind: 'rename', accountId: PUB_ID, displayName: 'Pia P.' }, { command: 'accounts.rename', payload: { accountId: PUB_ID, displayName: 'Pia P.' }, expectedRevision: null }, false],
    ['activate', { kind: 'setActive', accountId: PUB2_ID, active: true }, { command: 'accounts.setActive', payload: { accountId: PUB2_ID, active: true }, expectedRevision: null }, false],
    ['deactivate', { kind: 'setActive', accountId: PUB_ID, active: false }, { command: 'accounts.setActive', payload: { accountId: PUB_ID, active: false }, expectedRevision: null }, true],
    ['revoke', { kind: 'revoke', deviceId: 'dev_1' }, { command: 'devices.revoke', payload: { deviceId: 'dev_1' }, expectedRevision: null }, true],
    ['pair', { kind: 'pair', accountId: PUB_ID, label: 'NOC laptop 4' }, { command: 'pairing.start', payload: { accountId: PUB_ID, label: 'NOC laptop 4' }, expectedRevision: null }, false],
    ['assign Publisher', { kind: 'assignPublisher', accountId: PUB2_ID }, { command: 'publisher.assign', payload: { accountId: PUB2_ID }, expectedRevision: REVISION }, true],
    ['remove Publisher', { kind: 'assignPublisher', accountId: null }, { command: 'publisher.assign', payload: { accountId: null }, expectedRevision: REVISION }, true],
    ['transfer ownership', { kind: 'transfer', accountId: ADMIN_ID }, { command: 'ownership.transfer', payload: { accountId: ADMIN_ID }, expectedRevision: REVISION }, true],
    ['verify the audit log', { kind: 'auditVerify' }, { command: 'audit.verify', payload: {}, expectedRevision: null }, false],
  ] as const)('%s sends the exact command, then re-reads the snapshot', async (_name, action, expected, destructive) => {
    const { shell, ctl } = await signedIn();
    const before = shell.commands().length;
    await ctl.request(action);
    if (destructive) {
      expect(ctl.getState().dialog?.kind).toBe('confirm');
      expect(shell.commands()).toHaveLength(before);
      await ctl.confirm();
    }
    expect(shell.commands().slice(before)).toEqual([expected, { command: 'admin.snapshot', payload: {}, expectedRevision: null }]);
    expect(ctl.getState().message?.error).toBe(false);
    expect(ctl.getState().busy).toBe(false);
  });

  it('does nothing when a destructive action is cancelled', async () => {
    const { shell, ctl } = await signedIn();
    const before = shell.commands().length;
    await ctl.request({ kind: 'revoke', deviceId: 'dev_1' });
    ctl.cancelDialog();
    expect(ctl.getState().dialog).toBeNull();
    expect(shell.commands()).toHaveLength(before);
  });

  it('reports the audit chain in words', async () => {
    const { ctl } = await signedIn();
    await ctl.request({ kind: 'auditVerify' });
    expect(ctl.getState().message).toEqual({ text: 'Audit log: 42 entries, chain verified.', error: false });
  });

  it('shows a new pairing code with its expiry', async () => {
    vi.useFakeTimers();
    vi.setSystemTime(LOCK_AT - 3_600_000);
    const { ctl } = await signedIn();
    await ctl.request({ kind: 'pair', accountId: PUB_ID, label: 'NOC laptop 4' });
    expect(ctl.getState().dialog).toEqual({ kind: 'pairingCode', accountId: PUB_ID, label: 'NOC laptop 4', code: 'K7QX2M9P', expiresAtMs: LOCK_AT - 3_600_000 + 600_000 });
    ctl.cancelDialog();
    expect(stateText(ctl)).not.toContain('K7QX2M9P');
  });

  it('shows the server refusal of an Administrator transferring ownership', async () => {
    const { shell, ctl } = await signedIn({ role: 'administrator' });
    shell.refuseNext('ownership.transfer', { code: 'rejected', message: 'Only the Owner can transfer ownership.' });
    await ctl.request({ kind: 'transfer', accountId: ADMIN_ID });
    await ctl.confirm();
    expect(ctl.getState().message).toEqual({ text: 'Only the Owner can transfer ownership.', error: true });
    expect(ctl.getState().phase).toBe('session');
  });
});

describe('passwords', () => {
  it('sets a password from the field, clears it on submit, and reports revoked devices', async () => {
    const { shell, ctl } = await signedIn();
    const input = fakeInput('N3w-Secret-pw');
    ctl.fields.newPassword.ref(input);
    ctl.open({ kind: 'setPassword', accountId: PUB2_ID, error: null });
    input.value = 'N3w-Secret-pw';
    const done = ctl.submitNewPassword();
    expect(input.value).toBe('');
    await done;
    expect(shell.commands()).toContainEqual({ command: 'accounts.setPassword', payload: { accountId: PUB2_ID, password: 'N3w-Secret-pw' }, expectedRevision: null });
    expect(ctl.getState().message).toEqual({ text: 'Password set for Pete Spare (pete); 1 paired device revoked.', error: false });
    expect(stateText(ctl)).not.toContain('N3w-Secret-pw');
  });

  it('confirms before a reset, then opens the password form', async () => {
    const { ctl } = await signedIn();
    await ctl.request({ kind: 'resetPassword', accountId: PUB_ID });
    expect(ctl.getState().dialog).toMatchObject({ kind: 'confirm', confirmation: { title: 'Reset this password?' } });
    expect(JSON.stringify(ctl.getState().dialog)).toContain('its 1 active paired device is revoked');
    await ctl.confirm();
    expect(ctl.getState().dialog).toEqual({ kind: 'setPassword', accountId: PUB_ID, error: null });
  });

  it('clears the new-password field when the form is cancelled', async () => {
    const { shell, ctl } = await signedIn();
    const input = fakeInput();
    ctl.fields.newPassword.ref(input);
    ctl.open({ kind: 'setPassword', accountId: PUB2_ID, error: null });
    input.value = 'half-typed';
    ctl.cancelDialog();
    expect(input.value).toBe('');
    expect(shell.commands().map((c) => c.command)).not.toContain('accounts.setPassword');
  });

  it('clears the new-password field when setting fails', async () => {
    const { shell, ctl } = await signedIn();
    shell.refuseNext('accounts.setPassword', { code: 'invalid', message: 'password too short' });
    const input = fakeInput();
    ctl.fields.newPassword.ref(input);
    ctl.open({ kind: 'setPassword', accountId: PUB2_ID, error: null });
    input.value = 'abc1';
    await ctl.submitNewPassword();
    expect(input.value).toBe('');
    expect(ctl.getState().message).toEqual({ text: 'The server refused the request as invalid: password too short', error: true });
  });

  it('on passwordRequired asks for the password, confirms it and retries the action once', async () => {
    const { shell, ctl } = await signedIn();
    shell.refuseNext('accounts.setPassword', { code: 'passwordRequired', message: 'Confirm your password.' });
    ctl.open({ kind: 'setPassword', accountId: PUB2_ID, error: null });
    ctl.fields.newPassword.ref(fakeInput('N3w-Secret-pw'));
    await ctl.submitNewPassword();
    expect(ctl.getState().dialog).toEqual({ kind: 'freshPassword', error: null });
    expect(stateText(ctl)).not.toContain('N3w-Secret-pw');
    const fresh = fakeInput(PASSWORD);
    ctl.fields.fresh.ref(fresh);
    const done = ctl.submitFreshPassword();
    expect(fresh.value).toBe('');
    await done;
    const sets = shell.commands().filter((c) => c.command === 'accounts.setPassword');
    expect(sets).toEqual([
      { command: 'accounts.setPassword', payload: { accountId: PUB2_ID, password: 'N3w-Secret-pw' }, expectedRevision: null },
      { command: 'accounts.setPassword', payload: { accountId: PUB2_ID, password: 'N3w-Secret-pw' }, expectedRevision: null },
    ]);
    expect(shell.invoke).toHaveBeenCalledWith('admin_confirm_password', { password: PASSWORD });
    const names = shell.names();
    expect(names.indexOf('admin_confirm_password')).toBeLessThan(names.lastIndexOf('accounts.setPassword'));
    expect(ctl.getState()).toMatchObject({ dialog: null, message: { error: false } });
  });

  it('retries an authority command with the same revision, and only once', async () => {
    const { shell, ctl } = await signedIn();
    shell.refuseNext('publisher.assign', { code: 'passwordRequired', message: 'Confirm your password.' });
    shell.refuseNext('publisher.assign', { code: 'passwordRequired', message: 'Confirm your password.' });
    await ctl.request({ kind: 'assignPublisher', accountId: PUB2_ID });
    await ctl.confirm();
    ctl.fields.fresh.ref(fakeInput(PASSWORD));
    await ctl.submitFreshPassword();
    const assigns = shell.commands().filter((c) => c.command === 'publisher.assign');
    expect(assigns).toHaveLength(2);
    expect(assigns.every((c) => c.expectedRevision === REVISION)).toBe(true);
    expect(ctl.getState()).toMatchObject({ dialog: null, message: { text: 'This action needs your password again. Try it once more.', error: true } });
  });

  it('keeps the prompt open on a wrong password, with the field cleared', async () => {
    const { shell, ctl } = await signedIn();
    shell.refuseNext('devices.revoke', { code: 'passwordRequired', message: '' });
    await ctl.request({ kind: 'revoke', deviceId: 'dev_1' });
    await ctl.confirm();
    const fresh = fakeInput('not-it');
    ctl.fields.fresh.ref(fresh);
    await ctl.submitFreshPassword();
    expect(fresh.value).toBe('');
    expect(ctl.getState().dialog).toEqual({ kind: 'freshPassword', error: 'Wrong password.' });
    expect(shell.commands().filter((c) => c.command === 'devices.revoke')).toHaveLength(1);
  });

  it('clears the prompt field and drops the action when the prompt is cancelled', async () => {
    const { shell, ctl } = await signedIn();
    shell.refuseNext('devices.revoke', { code: 'passwordRequired', message: '' });
    await ctl.request({ kind: 'revoke', deviceId: 'dev_1' });
    await ctl.confirm();
    const fresh = fakeInput();
    ctl.fields.fresh.ref(fresh);
    fresh.value = 'half';
    ctl.cancelDialog();
    expect(fresh.value).toBe('');
    expect(ctl.getState()).toMatchObject({ dialog: null, message: { text: 'Cancelled; nothing was changed.' } });
    fresh.value = PASSWORD;
    await ctl.submitFreshPassword();
    expect(shell.names()).not.toContain('admin_confirm_password');
    expect(shell.commands().filter((c) => c.command === 'devices.revoke')).toHaveLength(1);
  });
});

describe('locking', () => {
  it('goes back to sign-in with the message when an action answers locked, fields cleared', async () => {
    const { shell, ctl } = await signedIn();
    const values = typedEverywhere(ctl);
    shell.refuseNext('accounts.rename', { code: 'locked', message: 'locked' });
    await ctl.request({ kind: 'rename', accountId: PUB_ID, displayName: 'X' });
    expect(ctl.getState()).toMatchObject({ phase: 'signedOut', session: null, snapshot: null, dialog: null, message: { text: LOCKED_MESSAGE, error: true } });
    expect(values()).toEqual(['', '', '']);
  });

  it('locks on the Lock button, clearing every field', async () => {
    const { shell, ctl } = await signedIn();
    const values = typedEverywhere(ctl);
    await ctl.lock();
    expect(shell.names()).toContain('admin_lock');
    expect(values()).toEqual(['', '', '']);
    expect(ctl.getState()).toMatchObject({ phase: 'signedOut', snapshot: null, message: { text: 'Administration locked.', error: false } });
  });

  it('polls every 30 s: an idle lock shows the sign-in form, a new lock time is shown', async () => {
    vi.useFakeTimers();
    const { shell, ctl } = await signedIn();
    shell.state.session = { username: 'olivia', role: 'owner', lockAtMs: LOCK_AT + 60_000 };
    await vi.advanceTimersByTimeAsync(30_000);
    expect(ctl.getState().session?.lockAtMs).toBe(LOCK_AT + 60_000);
    const values = typedEverywhere(ctl);
    shell.state.session = null;
    await vi.advanceTimersByTimeAsync(29_999);
    expect(ctl.getState().phase).toBe('session');
    await vi.advanceTimersByTimeAsync(1);
    expect(ctl.getState()).toMatchObject({ phase: 'signedOut', message: { text: LOCKED_MESSAGE } });
    expect(values()).toEqual(['', '', '']);
    ctl.stop();
  });

  it('stops polling and clears every field on unmount', async () => {
    vi.useFakeTimers();
    const { shell, ctl } = await signedIn();
    const values = typedEverywhere(ctl);
    ctl.stop();
    expect(values()).toEqual(['', '', '']);
    const calls = shell.invoke.mock.calls.length;
    await vi.advanceTimersByTimeAsync(120_000);
    expect(shell.invoke.mock.calls.length).toBe(calls);
    expect(ctl.getState()).toMatchObject({ phase: 'loading', snapshot: null });
  });
});

describe('SecretSlot', () => {
  it('starts blank, reads once, and clears the input when it unmounts', () => {
    const slot = new SecretSlot();
    expect(slot.take()).toBe('');
    const input = fakeInput('abc');
    slot.ref(input);
    expect(slot.take()).toBe('abc');
    expect(input.value).toBe('');
    input.value = 'again';
    slot.ref(null);
    expect(input.value).toBe('');
    expect(slot.take()).toBe('');
  });
});
