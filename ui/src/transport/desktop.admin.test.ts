// The desktop bridge's administration methods with a mocked window.__TAURI__: each calls its
// command (admin_status, admin_sign_in, admin_confirm_password, admin_lock, admin_command) with
// the contract's arguments; answers are checked field by field (an unknown role is the least
// privileged, extra snapshot fields — secrets included — are dropped); the admin refusal codes
// (locked, passwordRequired) and a numeric rateLimited message come through as BridgeRefusals;
// the logo commands (admin_set_logo, admin_remove_logo) take their exact arguments and their
// image refusals come through with the shell's message as written.
import { describe, expect, it, vi } from 'vitest';
import { BridgeRefusal, DesktopBridge, adminSnapshot, adminStatus } from './desktop';

const SESSION = { username: 'olivia', role: 'owner', lockAtMs: 1_800_000_000_000 };

function bridgeWith(reply: (cmd: string, args?: Record<string, unknown>) => unknown) {
  const invoke = vi.fn(async (cmd: string, args?: Record<string, unknown>) => reply(cmd, args));
  return { invoke, bridge: new DesktopBridge({ core: { invoke } }) };
}

describe('DesktopBridge administration commands', () => {
  it('call the five admin commands with the contract arguments', async () => {
    const { invoke, bridge } = bridgeWith((cmd) => (cmd === 'admin_command' ? { ok: true } : { available: true, session: SESSION }));
    await expect(bridge.adminStatus()).resolves.toEqual({ available: true, session: SESSION });
    await bridge.adminSignIn('olivia', 'pw-1');
    await bridge.adminConfirmPassword('pw-2');
    await expect(bridge.adminLock()).resolves.toEqual({ available: true, session: SESSION });
    await expect(bridge.adminCommand('publisher.assign', { accountId: null }, 7)).resolves.toEqual({ ok: true });
    await bridge.adminCommand('devices.revoke', { deviceId: 'd1' });
    expect(invoke.mock.calls).toEqual([
      ['admin_status', undefined],
      ['admin_sign_in', { username: 'olivia', password: 'pw-1' }],
      ['admin_confirm_password', { password: 'pw-2' }],
      ['admin_lock', undefined],
      ['admin_command', { command: 'publisher.assign', payload: { accountId: null }, expectedRevision: 7 }],
      ['admin_command', { command: 'devices.revoke', payload: { deviceId: 'd1' }, expectedRevision: null }],
    ]);
  });

  it('reads admin.snapshot through admin_command with no revision', async () => {
    const { invoke, bridge } = bridgeWith(() => ({ accounts: [], devices: [], authority: { ownerAccountId: 'a', publisherAccountId: null, revision: 3 } }));
    await expect(bridge.adminSnapshot()).resolves.toEqual({ accounts: [], devices: [], authority: { ownerAccountId: 'a', publisherAccountId: null, revision: 3 } });
    expect(invoke).toHaveBeenCalledWith('admin_command', { command: 'admin.snapshot', payload: {}, expectedRevision: null });
  });

  it('rejects with the admin refusal codes and a numeric rate limit', async () => {
    const errors = [
      { code: 'locked', message: 'The administration session is locked.' },
      { code: 'passwordRequired', message: 'Confirm your password.' },
      { code: 'rateLimited', message: 30 },
      { code: 'rateLimited', message: 'retry in 5 s' },
      { code: 'surprise', message: 'x' },
    ];
    const { bridge } = bridgeWith(() => {
      throw errors.shift();
    });
    const refusals: BridgeRefusal[] = [];
    for (let i = 0; i < 5; i++) refusals.push(await bridge.adminStatus().then(() => { throw new Error('resolved'); }, (e: BridgeRefusal) => e));
    expect(refusals.every((r) => r instanceof BridgeRefusal)).toBe(true);
    expect(refusals.map((r) => r.code)).toEqual(['locked', 'passwordRequired', 'rateLimited', 'rateLimited', null]);
    expect(refusals[0].message).toBe('The administration session is locked.');
    expect(refusals[2].retryAfterSeconds).toBe(30);
    expect(refusals[2].message).toBe('Too many requests; try again in 30 s.');
    expect(refusals[3].retryAfterSeconds).toBeNull();
    expect(refusals[3].message).toBe('retry in 5 s');
  });
});

describe('admin answers', () => {
  it('keep a session only while available, with a known role', () => {
    expect(adminStatus({ available: true, session: SESSION })).toEqual({ available: true, session: SESSION });
    expect(adminStatus({ available: false, session: SESSION })).toEqual({ available: false, session: null });
    expect(adminStatus({ available: true, session: { ...SESSION, role: 'root' } }).session?.role).toBe('publisher');
    expect(adminStatus({ available: true, session: { role: 'owner' } })).toEqual({ available: true, session: null });
    expect(adminStatus(null)).toEqual({ available: false, session: null });
  });

  it('drop every snapshot field the contract does not name', () => {
    const s = adminSnapshot({
      accounts: [
        { id: 'a', username: 'u', displayName: 'U', kind: 'administrator', active: true, role: 'owner', password: 'Configured', passwordHash: 'HASH' },
        { id: 'b', username: 'v', displayName: 'V', kind: 'weird', active: 'yes', role: 'god', password: 'hunter2' },
        'junk',
      ],
      devices: [{ id: 'd', accountId: 'a', label: 'L', hostname: 'h', state: 'active', fingerprintSuffix: '12ab', fingerprint: 'FULL', token: 'TOKEN' }],
      authority: { ownerAccountId: 'a', publisherAccountId: '', revision: 'x' },
      secrets: 'S',
    });
    expect(s).toEqual({
      accounts: [
        { id: 'a', username: 'u', displayName: 'U', kind: 'administrator', active: true, role: 'owner', password: 'Configured' },
        { id: 'b', username: 'v', displayName: 'V', kind: 'publisher', active: false, role: null, password: 'Not configured' },
      ],
      devices: [{ id: 'd', accountId: 'a', label: 'L', hostname: 'h', state: 'active', fingerprintSuffix: '12ab' }],
      authority: { ownerAccountId: 'a', publisherAccountId: null, revision: 0 },
    });
    expect(JSON.stringify(s)).not.toMatch(/HASH|hunter2|FULL|TOKEN|"S"/);
  });
});

describe('DesktopBridge logo commands', () => {
  it('set and remove a logo with the contract arguments', async () => {
    const { invoke, bridge } = bridgeWith((cmd) => (cmd === 'admin_set_logo' ? { width: 400, height: 100, bytes: 5120, extra: 'x' } : null));
    await expect(bridge.adminSetLogo('company', 'iVBORw0KGgo=')).resolves.toEqual({ width: 400, height: 100, bytes: 5120 });
    await expect(bridge.adminRemoveLogo('footer')).resolves.toBeUndefined();
    expect(invoke.mock.calls).toEqual([
      ['admin_set_logo', { kind: 'company', imageBase64: 'iVBORw0KGgo=' }],
      ['admin_remove_logo', { kind: 'footer' }],
    ]);
  });

  it('reject with the shell refusal, message as written', async () => {
    const errors = [
      { code: 'rejected', message: 'Image must be a PNG, JPEG or WebP file' },
      { code: 'invalid', message: 'Image must be under 2 MB' },
      { code: 'locked', message: 'The administration session is locked.' },
    ];
    const { bridge } = bridgeWith(() => {
      throw errors.shift();
    });
    await expect(bridge.adminSetLogo('company', 'AAAA')).rejects.toMatchObject({ name: 'BridgeRefusal', code: 'rejected', message: 'Image must be a PNG, JPEG or WebP file' });
    await expect(bridge.adminSetLogo('footer', 'AAAA')).rejects.toMatchObject({ code: 'invalid', message: 'Image must be under 2 MB' });
    await expect(bridge.adminRemoveLogo('company')).rejects.toMatchObject({ code: 'locked' });
  });
});
