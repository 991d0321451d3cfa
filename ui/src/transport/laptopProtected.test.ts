// LaptopProtectedSession (surface 'laptop') over a fake bridge: the status mapping (available only
// while paired, the session when signed in), sign-in as the paired account only (another username
// refused as 'invalid' without any call), the password only in the invoke's arguments, commands
// and the snapshot through laptop_command, the Wiki upload through laptop_wiki_upload (progress
// on its channel), and a revoked pairing's `locked` refusal re-reading the status for the listeners.
import { describe, expect, it, vi } from 'vitest';
import { BridgeRefusal, DesktopBridge, REVOKED_MESSAGE } from './desktop';
import { LaptopProtectedSession } from './laptopProtected';

const DEVICE = { username: 'adam', label: 'NOC laptop', fingerprintSuffix: 'ab12cd', role: 'administrator' };
const SESSION = { username: 'adam', role: 'administrator', lockAtMs: 1_800_000_000_000 };
const PASSWORD = 'Correct-Horse-42';

class FakeChannel {
  onmessage: (message: unknown) => void = () => undefined;
}

function setup(initial: Record<string, unknown>) {
  let status: Record<string, unknown> = initial;
  const errors: unknown[] = [];
  const invoke = vi.fn(async (cmd: string, args?: Record<string, unknown>) => {
    if (errors.length) throw errors.shift();
    if (cmd === 'laptop_sign_in' || cmd === 'laptop_confirm_password') status = { ...status, session: SESSION };
    if (cmd === 'laptop_lock') status = { ...status, session: null };
    if (cmd === 'laptop_wiki_upload') {
      const file = { uploadId: 'up1', fileName: 'runbook.pdf', byteSize: 10, state: 'queued', storedChunks: 0, chunkCount: 1, error: null };
      const channel = args?.onProgress as FakeChannel;
      for (const state of ['queued', 'uploading', 'ready']) channel.onmessage({ ...file, state, storedChunks: state === 'ready' ? 1 : 0, path: '/home/pat/runbook.pdf' });
      return { batchId: 'batch1', files: [{ ...file, state: 'ready', storedChunks: 1 }] };
    }
    if (cmd === 'laptop_command') return args?.command === 'admin.snapshot' ? { accounts: [], devices: [], authority: { ownerAccountId: 'o', publisherAccountId: null, revision: 2 }, secret: 'X' } : { ok: true };
    return status;
  });
  const session = new LaptopProtectedSession(new DesktopBridge({ core: { invoke, Channel: FakeChannel } }));
  return { invoke, session, errors, setStatus: (s: Record<string, unknown>) => (status = s) };
}

describe('LaptopProtectedSession', () => {
  it('is the laptop surface', () => {
    expect(setup({}).session.surface).toBe('laptop');
  });

  it('maps the laptop status to the admin status', async () => {
    const { session, setStatus } = setup({ available: true, pairing: 'paired', device: DEVICE, session: null });
    await expect(session.adminStatus()).resolves.toEqual({ available: true, session: null });
    setStatus({ available: true, pairing: 'paired', device: DEVICE, session: SESSION });
    await expect(session.adminStatus()).resolves.toEqual({ available: true, session: SESSION });
    for (const pairing of ['unpaired', 'revoked', 'storeUnavailable']) {
      setStatus({ available: true, pairing, device: null, session: SESSION });
      await expect(session.adminStatus()).resolves.toEqual({ available: false, session: null });
    }
    setStatus({ available: false, pairing: 'paired', device: DEVICE, session: SESSION });
    await expect(session.adminStatus()).resolves.toEqual({ available: false, session: null });
  });

  it('signs in as the paired account with the password only in the invoke arguments', async () => {
    const { session, invoke } = setup({ available: true, pairing: 'paired', device: DEVICE, session: null });
    await expect(session.adminSignIn('adam', PASSWORD)).resolves.toEqual({ available: true, session: SESSION });
    expect(invoke.mock.calls).toEqual([['laptop_status', undefined], ['laptop_sign_in', { password: PASSWORD }]]);
    await session.adminConfirmPassword(PASSWORD);
    await expect(session.adminLock()).resolves.toEqual({ available: true, session: null });
    expect(invoke.mock.calls.slice(2)).toEqual([['laptop_confirm_password', { password: PASSWORD }], ['laptop_lock', undefined]]);
    // Nothing this session keeps or reports carries the password.
    expect(JSON.stringify(session.current())).not.toContain(PASSWORD);
    expect(JSON.stringify(Object.values(session))).not.toContain(PASSWORD);
  });

  it('refuses another username without any sign-in call', async () => {
    const { session, invoke } = setup({ available: true, pairing: 'paired', device: DEVICE, session: null });
    await session.adminStatus();
    invoke.mockClear();
    const e = await session.adminSignIn('olivia', PASSWORD).then(() => null, (x: unknown) => x);
    expect(e).toBeInstanceOf(BridgeRefusal);
    expect(e).toMatchObject({ code: 'invalid', message: 'This laptop is paired for adam.' });
    expect(invoke).not.toHaveBeenCalled();
  });

  it('refuses sign-in when not paired', async () => {
    const { session, invoke } = setup({ available: true, pairing: 'unpaired', device: null, session: null });
    await expect(session.adminSignIn('adam', PASSWORD)).rejects.toMatchObject({ code: 'unavailable' });
    expect(invoke.mock.calls.map((c) => c[0])).toEqual(['laptop_status']);
  });

  it('runs commands and the snapshot through laptop_command', async () => {
    const { session, invoke } = setup({ available: true, pairing: 'paired', device: DEVICE, session: SESSION });
    await expect(session.adminCommand('devices.revoke', { deviceId: 'd1' })).resolves.toEqual({ ok: true });
    await expect(session.adminSnapshot()).resolves.toEqual({ accounts: [], devices: [], authority: { ownerAccountId: 'o', publisherAccountId: null, revision: 2 } });
    expect(invoke.mock.calls).toEqual([
      ['laptop_command', { command: 'devices.revoke', payload: { deviceId: 'd1' }, expectedRevision: null }],
      ['laptop_command', { command: 'admin.snapshot', payload: {}, expectedRevision: null }],
    ]);
  });

  it('uploads Wiki PDFs through laptop_wiki_upload with progress on its channel', async () => {
    const { session, invoke } = setup({ available: true, pairing: 'paired', device: DEVICE, session: SESSION });
    const onEvent = vi.fn();
    const summary = await session.adminWikiUpload('doc1', onEvent);
    expect(summary).toEqual({ batchId: 'batch1', files: [expect.objectContaining({ uploadId: 'up1', state: 'ready', storedChunks: 1 })] });
    expect(invoke.mock.calls.map((c) => c[0])).toEqual(['laptop_wiki_upload']);
    expect(invoke.mock.calls[0][1]).toMatchObject({ replacementDocumentId: 'doc1' });
    expect(onEvent.mock.calls.map((c) => c[0].state)).toEqual(['queued', 'uploading', 'ready']);
    expect(JSON.stringify(onEvent.mock.calls)).not.toContain('/home/pat');
  });

  it('a revoked pairing during an upload re-reads the status', async () => {
    const { session, invoke, errors, setStatus } = setup({ available: true, pairing: 'paired', device: DEVICE, session: SESSION });
    errors.push({ code: 'locked', message: REVOKED_MESSAGE });
    setStatus({ available: true, pairing: 'revoked', device: null, session: null });
    await expect(session.adminWikiUpload(null, () => undefined)).rejects.toMatchObject({ code: 'locked', message: REVOKED_MESSAGE });
    expect(invoke.mock.calls.map((c) => c[0])).toEqual(['laptop_wiki_upload', 'laptop_status']);
    expect(session.current()?.pairing).toBe('revoked');
  });

  it('pairs and forgets with the exact arguments and tells the listeners', async () => {
    const { session, invoke, setStatus } = setup({ available: true, pairing: 'unpaired', device: null, session: null });
    const seen = vi.fn();
    session.onStatus(seen);
    setStatus({ available: true, pairing: 'paired', device: DEVICE, session: null });
    await session.pair('adam', 'ABCDEFGH', 'NOC laptop');
    setStatus({ available: true, pairing: 'unpaired', device: null, session: null });
    await session.forget();
    expect(invoke.mock.calls).toEqual([['laptop_pair', { username: 'adam', code: 'ABCDEFGH', label: 'NOC laptop' }], ['laptop_forget', undefined]]);
    expect(seen.mock.calls.map((c) => c[0].pairing)).toEqual(['paired', 'unpaired']);
  });

  it('a revoked pairing re-reads the status, then rejects as locked', async () => {
    const { session, invoke, errors, setStatus } = setup({ available: true, pairing: 'paired', device: DEVICE, session: SESSION });
    const seen = vi.fn();
    session.onStatus(seen);
    errors.push({ code: 'locked', message: REVOKED_MESSAGE });
    setStatus({ available: true, pairing: 'revoked', device: null, session: null });
    await expect(session.adminSnapshot()).rejects.toMatchObject({ code: 'locked', message: REVOKED_MESSAGE });
    expect(invoke.mock.calls.map((c) => c[0])).toEqual(['laptop_command', 'laptop_status']);
    expect(seen).toHaveBeenCalledWith(expect.objectContaining({ pairing: 'revoked' }));
    // An ordinary idle lock does not.
    errors.push({ code: 'locked', message: 'The administration session locked.' });
    invoke.mockClear();
    await expect(session.adminCommand('audit.verify', {})).rejects.toMatchObject({ code: 'locked' });
    expect(invoke.mock.calls.map((c) => c[0])).toEqual(['laptop_command']);
  });
});
