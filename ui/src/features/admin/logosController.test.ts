// The Logos section's flow against the fake server-mode shell (through the real DesktopBridge and
// the real AdminController): the previews read on start from object URLs (revoked when replaced
// and on stop); choosing an image sends its exact bytes base64 to admin_set_logo, notices the
// stored size and re-reads the preview; a file over 2 MiB is refused before anything is sent; the
// shell's image refusals are shown as written; `locked` goes back to the sign-in form;
// `passwordRequired` asks for the password and retries once; removing asks for the confirmation
// first, then calls admin_remove_logo; a Publisher session has no Logos section.
import { describe, expect, it, vi } from 'vitest';
import type { AdminRole, LogoKind } from '../../transport/desktop';
import { AdminController } from './adminController';
import { LOCKED_MESSAGE } from './adminModel';
import { LOCK_AT, PASSWORD, fakeAdminShell, fakeInput, fakeObjectUrls } from './adminTestkit';
import { LogosController, showsLogos } from './logosController';
import { LOGO_TOO_LARGE, MAX_LOGO_BYTES, base64Of, type LogoFile } from './logosModel';
import { onLogosChanged } from '../../lib/logoChanges';

const STORED = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);

async function section(opts: { role?: AdminRole; logos?: Partial<Record<LogoKind, Uint8Array>> } = {}) {
  const shell = fakeAdminShell({ role: opts.role });
  Object.assign(shell.state.logos, opts.logos ?? {});
  const admin = new AdminController(shell.bridge);
  await admin.start();
  const urls = fakeObjectUrls();
  const logos = new LogosController(shell.bridge, admin, shell.fetchLogo, urls);
  await logos.start();
  return { shell, admin, urls, logos };
}

/** A chosen file with these bytes (its size as the browser reports it). */
function file(bytes: Uint8Array, size = bytes.length): LogoFile & { arrayBuffer: ReturnType<typeof vi.fn> } {
  return { size, arrayBuffer: vi.fn(async () => bytes.slice().buffer) };
}

/** Bytes 0..255 repeated, long enough for several encoding chunks and not a multiple of 3. */
function imageBytes(n = 3 * 8192 * 2 + 5): Uint8Array {
  return Uint8Array.from({ length: n }, (_, i) => (i * 31 + 7) % 256);
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Standard base64, spelled out three bytes at a time (independent of btoa). */
function reference(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += ALPHABET[(n >> 18) & 63] + ALPHABET[(n >> 12) & 63];
    out += i + 1 < bytes.length ? ALPHABET[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.length ? ALPHABET[n & 63] : '=';
  }
  return out;
}

const logoCalls = (shell: ReturnType<typeof fakeAdminShell>) => shell.invoke.mock.calls.filter(([c]) => c === 'admin_set_logo' || c === 'admin_remove_logo');

describe('previews', () => {
  it('reads both logos on start: an object URL for a set one, none for the other', async () => {
    const { shell, urls, logos } = await section({ logos: { company: STORED } });
    expect(shell.fetchLogo.mock.calls.map(([k]) => k).sort()).toEqual(['company', 'footer']);
    expect(logos.getState().previews).toEqual({
      company: { status: 'set', url: 'blob:relay/1', error: null },
      footer: { status: 'none', url: null, error: null },
    });
    expect(urls.createObjectURL).toHaveBeenCalledTimes(1);
  });

  it('says why a logo could not be read', async () => {
    const shell = fakeAdminShell();
    const admin = new AdminController(shell.bridge);
    await admin.start();
    shell.fetchLogo.mockRejectedValueOnce(new Error('Cannot reach the Relay server.'));
    const logos = new LogosController(shell.bridge, admin, shell.fetchLogo, fakeObjectUrls());
    await logos.start();
    const failed = Object.values(logos.getState().previews).find((p) => p.status === 'failed');
    expect(failed?.error).toBe('The current logo could not be read: Cannot reach the Relay server.');
  });

  it('revokes every preview URL on stop', async () => {
    const { urls, logos } = await section({ logos: { company: STORED, footer: STORED } });
    expect(urls.live.size).toBe(2);
    logos.stop();
    expect(urls.live.size).toBe(0);
    expect(logos.getState().previews.company.status).toBe('loading');
  });
});

describe('choosing an image', () => {
  it('sends the file bytes base64, exactly, then notices the size and re-reads the preview', async () => {
    const { shell, admin, urls, logos } = await section({ logos: { company: STORED } });
    const bytes = imageBytes();
    const told = vi.fn();
    const off = onLogosChanged(told);
    await logos.choose('company', file(bytes));
    off();
    expect(told).toHaveBeenCalledTimes(1);
    expect(logoCalls(shell)).toEqual([['admin_set_logo', { kind: 'company', imageBase64: reference(bytes) }]]);
    expect(shell.state.logos.company).toEqual(bytes);
    expect(logos.getState().message).toEqual({ text: 'Company logo saved (400×100).', error: false });
    expect(shell.fetchLogo.mock.calls.filter(([k]) => k === 'company')).toHaveLength(2);
    expect(logos.getState().previews.company).toEqual({ status: 'set', url: 'blob:relay/2', error: null });
    expect(urls.revokeObjectURL).toHaveBeenCalledWith('blob:relay/1');
    expect([...urls.live]).toEqual(['blob:relay/2']);
    expect(admin.getState()).toMatchObject({ phase: 'session', busy: false, message: null });
    expect(logos.getState().reading).toBe(false);
  });

  it('encodes standard base64 at every length, across chunk boundaries', () => {
    expect(base64Of(new TextEncoder().encode('Man'))).toBe('TWFu');
    expect(base64Of(new TextEncoder().encode('Ma'))).toBe('TWE=');
    expect(base64Of(new TextEncoder().encode('M'))).toBe('TQ==');
    for (const n of [0, 1, 2, 3, 4, 24575, 24576, 24577, 49153]) {
      const bytes = imageBytes(n);
      expect(base64Of(bytes), `${n} bytes`).toBe(reference(bytes));
    }
  });

  it('refuses a file over 2 MB before reading or sending it', async () => {
    const { shell, logos } = await section();
    const big = file(new Uint8Array(4), MAX_LOGO_BYTES + 1);
    await logos.choose('footer', big);
    expect(big.arrayBuffer).not.toHaveBeenCalled();
    expect(logoCalls(shell)).toEqual([]);
    expect(logos.getState().message).toEqual({ text: LOGO_TOO_LARGE, error: true });
    // Exactly 2 MiB is allowed.
    await logos.choose('footer', file(new Uint8Array(MAX_LOGO_BYTES)));
    expect(logoCalls(shell)).toHaveLength(1);
  });

  it.each([
    ['rejected', 'Image must be a PNG, JPEG or WebP file', 'Image must be a PNG, JPEG or WebP file'],
    ['rejected', 'Image dimensions 20000×20000 are too large (at most 8192×8192)', 'Image dimensions 20000×20000 are too large (at most 8192×8192)'],
    ['invalid', 'Image must be under 2 MB', 'Image must be under 2 MB'],
    ['unavailable', 'the server is restarting; retry in a moment', 'Administration is unavailable right now (the server is restarting; retry in a moment). It runs on the server PC while the server is up.'],
    ['rateLimited', 30, 'Too many attempts. Wait 30 seconds and try again.'],
  ])('shows a %s refusal (%s) and keeps the previous logo', async (code, message, shown) => {
    const { shell, admin, logos } = await section({ logos: { company: STORED } });
    shell.refuseNext('admin_set_logo', { code, message });
    await logos.choose('company', file(imageBytes(10)));
    expect(logos.getState().message).toEqual({ text: shown, error: true });
    expect(logos.getState().previews.company).toEqual({ status: 'set', url: 'blob:relay/1', error: null });
    expect(admin.getState()).toMatchObject({ phase: 'session', busy: false });
  });

  it('goes back to the sign-in form with the locked message when the session locked', async () => {
    const { shell, admin, logos } = await section();
    shell.refuseNext('admin_set_logo', { code: 'locked', message: 'locked' });
    await logos.choose('company', file(imageBytes(10)));
    expect(admin.getState()).toMatchObject({ phase: 'signedOut', session: null, message: { text: LOCKED_MESSAGE, error: true } });
    expect(showsLogos(admin.getState())).toBe(false);
    expect(logos.getState().message).toBeNull();
  });

  it('asks for the password on passwordRequired and sends the same image once more', async () => {
    const { shell, admin, logos } = await section();
    shell.refuseNext('admin_set_logo', { code: 'passwordRequired', message: 'Confirm your password to continue.' });
    const bytes = imageBytes(100);
    await logos.choose('footer', file(bytes));
    expect(admin.getState().dialog).toEqual({ kind: 'freshPassword', error: null });
    admin.fields.fresh.ref(fakeInput(PASSWORD));
    await admin.submitFreshPassword();
    const payload = { kind: 'footer', imageBase64: reference(bytes) };
    expect(logoCalls(shell)).toEqual([['admin_set_logo', payload], ['admin_set_logo', payload]]);
    expect(logos.getState().message).toEqual({ text: 'Footer logo saved (400×100).', error: false });
    expect(logos.getState().previews.footer.status).toBe('set');
  });

  it('does nothing while the session runs a request', async () => {
    const { shell, admin, logos } = await section();
    const pending = admin.request({ kind: 'auditVerify' });
    await logos.choose('company', file(imageBytes(10)));
    await pending;
    expect(logoCalls(shell)).toEqual([]);
  });
});

describe('removing a logo', () => {
  it('asks for the confirmation first, then calls admin_remove_logo and re-reads the preview', async () => {
    const { shell, urls, logos } = await section({ logos: { footer: STORED } });
    logos.askRemove('footer');
    expect(logos.getState().removing).toBe('footer');
    expect(logoCalls(shell)).toEqual([]);
    await logos.confirmRemove();
    expect(logoCalls(shell)).toEqual([['admin_remove_logo', { kind: 'footer' }]]);
    expect(logos.getState()).toMatchObject({ removing: null, message: { text: 'Footer logo removed.', error: false } });
    expect(logos.getState().previews.footer).toEqual({ status: 'none', url: null, error: null });
    expect(urls.live.size).toBe(0);
  });

  it('sends nothing when the confirmation is cancelled', async () => {
    const { shell, logos } = await section({ logos: { company: STORED } });
    logos.askRemove('company');
    logos.cancelRemove();
    await logos.confirmRemove();
    expect(logos.getState().removing).toBeNull();
    expect(logoCalls(shell)).toEqual([]);
  });

  it('goes back to the sign-in form when the session locked', async () => {
    const { shell, admin, logos } = await section({ logos: { company: STORED } });
    shell.state.session = null;
    logos.askRemove('company');
    await logos.confirmRemove();
    expect(admin.getState()).toMatchObject({ phase: 'signedOut', message: { text: LOCKED_MESSAGE } });
  });
});

describe('who sees the Logos section', () => {
  it('an Owner or Administrator session; not a Publisher session, nor signed out', () => {
    const s = (role: AdminRole) => ({ phase: 'session' as const, session: { username: 'u', role, lockAtMs: LOCK_AT } });
    expect(showsLogos(s('owner'))).toBe(true);
    expect(showsLogos(s('administrator'))).toBe(true);
    expect(showsLogos(s('publisher'))).toBe(false);
    expect(showsLogos({ phase: 'signedOut', session: null })).toBe(false);
  });

  it('a Publisher session is not offered the section', async () => {
    const shell = fakeAdminShell({ role: 'publisher' });
    const admin = new AdminController(shell.bridge);
    await admin.start();
    expect(admin.getState().phase).toBe('session');
    expect(showsLogos(admin.getState())).toBe(false);
  });
});
