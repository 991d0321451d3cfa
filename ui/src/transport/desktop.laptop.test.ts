// The desktop bridge's laptop methods with a mocked window.__TAURI__: each calls its laptop_*
// command with exactly the contract's argument names (laptop_status, laptop_pair, laptop_sign_in,
// laptop_confirm_password, laptop_lock, laptop_command, laptop_forget, laptop_wiki_upload with its
// progress channel); answers are read field by
// field (unknown pairing → 'unpaired', unknown role → Publisher, extra fields dropped, nothing of
// the session outside 'paired'), and a revoked pairing's refusal comes through as `locked`.
import { describe, expect, it, vi } from 'vitest';
import { BridgeRefusal, DesktopBridge, REVOKED_MESSAGE, laptopStatus } from './desktop';

const DEVICE = { username: 'adam', label: 'NOC laptop', fingerprintSuffix: 'ab12cd', role: 'administrator' };
const SESSION = { username: 'adam', role: 'administrator', lockAtMs: 1_800_000_000_000 };
const PAIRED = { available: true, pairing: 'paired', device: DEVICE, session: SESSION };

function bridgeWith(reply: (cmd: string, args?: Record<string, unknown>) => unknown) {
  const invoke = vi.fn(async (cmd: string, args?: Record<string, unknown>) => reply(cmd, args));
  return { invoke, bridge: new DesktopBridge({ core: { invoke } }) };
}

describe('DesktopBridge laptop commands', () => {
  it('call the seven laptop commands with the contract arguments', async () => {
    const { invoke, bridge } = bridgeWith((cmd) => (cmd === 'laptop_command' ? { ok: true } : PAIRED));
    await expect(bridge.laptopStatus()).resolves.toEqual(PAIRED);
    await bridge.laptopPair('adam', 'ABCD-EFGH', 'NOC laptop');
    await bridge.laptopSignIn('pw-1');
    await bridge.laptopConfirmPassword('pw-2');
    await bridge.laptopLock();
    await expect(bridge.laptopCommand('publisher.assign', { accountId: null }, 7)).resolves.toEqual({ ok: true });
    await bridge.laptopCommand('admin.snapshot', {});
    await bridge.laptopForget();
    expect(invoke.mock.calls).toEqual([
      ['laptop_status', undefined],
      ['laptop_pair', { username: 'adam', code: 'ABCD-EFGH', label: 'NOC laptop' }],
      ['laptop_sign_in', { password: 'pw-1' }],
      ['laptop_confirm_password', { password: 'pw-2' }],
      ['laptop_lock', undefined],
      ['laptop_command', { command: 'publisher.assign', payload: { accountId: null }, expectedRevision: 7 }],
      ['laptop_command', { command: 'admin.snapshot', payload: {}, expectedRevision: null }],
      ['laptop_forget', undefined],
    ]);
  });

  it('laptopWikiUpload invokes laptop_wiki_upload with a channel and reads its events and summary', async () => {
    class FakeChannel {
      onmessage: (message: unknown) => void = () => undefined;
    }
    const file = { uploadId: 'up1', fileName: 'a.pdf', byteSize: 10, state: 'ready', storedChunks: 1, chunkCount: 1, error: null };
    const invoke = vi.fn(async (_cmd: string, args?: Record<string, unknown>) => {
      (args?.onProgress as FakeChannel).onmessage({ ...file, state: 'uploading', storedChunks: 0, path: '/secret/a.pdf' });
      return { batchId: 'b1', files: [file], token: 'TOKEN' };
    });
    const bridge = new DesktopBridge({ core: { invoke, Channel: FakeChannel } });
    const events: unknown[] = [];
    const summary = await bridge.laptopWikiUpload(null, (e) => events.push(e));
    expect(invoke.mock.calls[0][0]).toBe('laptop_wiki_upload');
    expect(invoke.mock.calls[0][1]).toMatchObject({ replacementDocumentId: null });
    expect(invoke.mock.calls[0][1]?.onProgress).toBeInstanceOf(FakeChannel);
    expect(summary).toEqual({ batchId: 'b1', files: [file] });
    expect(events).toEqual([{ ...file, state: 'uploading', storedChunks: 0 }]);
    // Without a channel the shell cannot report progress: refused before any call.
    const bare = bridgeWith(() => ({}));
    await expect(bare.bridge.laptopWikiUpload(null, () => undefined)).rejects.toMatchObject({ code: 'unavailable' });
    expect(bare.invoke).not.toHaveBeenCalled();
  });

  it('reads the status field by field', () => {
    expect(laptopStatus(null)).toEqual({ available: false, pairing: 'unpaired', device: null, session: null });
    expect(laptopStatus({ available: true, pairing: 'weird', device: null, session: null }).pairing).toBe('unpaired');
    const odd = laptopStatus({
      available: true,
      pairing: 'paired',
      device: { ...DEVICE, role: 'root', publicJwk: 'KEY', fingerprint: 'FULL' },
      session: { ...SESSION, role: 'superuser', token: 'TOKEN' },
      proof: 'PROOF',
    });
    expect(odd).toEqual({
      available: true,
      pairing: 'paired',
      device: { username: 'adam', label: 'NOC laptop', fingerprintSuffix: 'ab12cd', role: 'publisher' },
      session: { username: 'adam', role: 'publisher', lockAtMs: SESSION.lockAtMs },
    });
    expect(JSON.stringify(odd)).not.toMatch(/KEY|FULL|TOKEN|PROOF/);
    // A session only while paired; nothing at all outside client mode.
    expect(laptopStatus({ ...PAIRED, pairing: 'revoked' }).session).toBeNull();
    expect(laptopStatus({ ...PAIRED, available: false })).toEqual({ available: false, pairing: 'paired', device: null, session: null });
    for (const pairing of ['unpaired', 'paired', 'revoked', 'storeUnavailable']) expect(laptopStatus({ available: true, pairing }).pairing).toBe(pairing);
  });

  it('a revoked pairing comes through as a locked refusal with the shell message', async () => {
    const { bridge } = bridgeWith(() => {
      throw { code: 'locked', message: REVOKED_MESSAGE };
    });
    const e = await bridge.laptopCommand('admin.snapshot', {}).then(() => null, (x: unknown) => x);
    expect(e).toBeInstanceOf(BridgeRefusal);
    expect(e).toMatchObject({ code: 'locked', message: REVOKED_MESSAGE });
  });
});
