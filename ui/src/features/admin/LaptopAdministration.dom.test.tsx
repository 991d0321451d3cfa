// @vitest-environment jsdom
// Settings → Administration in a client-mode desktop, mounted in a DOM with a fake shell
// (connection_info says client; the laptop_* commands answer like the shell): the pairing section
// appears, "Pair this laptop" sends the typed username, the code (XXXX-XXXX → 8 characters) and the
// label, the paired screen then shows "Paired as …" and the sign-in with the paired username
// read-only; signing in clears the password field and shows the session, the accounts table
// without Set password or Pair device, the Dynatrace section and the Wiki with its upload button; a
// revoked pairing brings back the revoked state and the pair form.
import { act } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { domRoot, flush } from '../../lib/domTest';
import { TransportProvider } from '../../transport/context';
import { REVOKED_MESSAGE } from '../../transport/desktop';
import type { Transport } from '../../transport/types';
import { Administration } from './AdministrationPanel';
import { LOCK_AT, PASSWORD, snapshotFixture } from './adminTestkit';

const DEVICE = { username: 'adam', label: 'Desk', fingerprintSuffix: 'ab12cd', role: 'administrator' };

function fakeShell() {
  let status: Record<string, unknown> = { available: true, pairing: 'unpaired', device: null, session: null };
  const errors: unknown[] = [];
  const invoke = vi.fn(async (cmd: string, args?: Record<string, unknown>) => {
    if (cmd === 'connection_info') return { mode: 'client', serverUrl: 'http://10.0.0.5:8090', passphraseAvailable: true, secretStorage: 'os-secret-store' };
    if (errors.length) throw errors.shift();
    if (cmd === 'laptop_pair') status = { available: true, pairing: 'paired', device: DEVICE, session: null };
    if (cmd === 'laptop_sign_in') status = { ...status, session: { username: 'adam', role: 'administrator', lockAtMs: LOCK_AT } };
    if (cmd === 'laptop_command') {
      if (args?.command === 'admin.snapshot') return snapshotFixture();
      if (args?.command === 'wiki.library') return { categories: [], documents: [] };
      return {};
    }
    return status;
  });
  return { invoke, errors, revoke: () => (status = { available: true, pairing: 'revoked', device: null, session: null }) };
}

const transport = { mode: 'desktop' } as unknown as Transport;
const dom = domRoot();

function type(el: Element | null, value: string) {
  const input = el as HTMLInputElement;
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set;
  setter?.call(input, value);
  input.dispatchEvent(new Event('input', { bubbles: true }));
}

const $ = (id: string) => dom.host?.querySelector(`[data-testid="${id}"]`) ?? null;

describe('Administration in a client-mode desktop', () => {
  it('pairs, signs in as the paired account, and shows a revoked pairing', async () => {
    const shell = fakeShell();
    await dom.render(<TransportProvider transport={transport}><Administration w={{ __TAURI__: { core: { invoke: shell.invoke } } }} /></TransportProvider>);
    await flush();
    expect($('administration')?.getAttribute('data-surface')).toBe('laptop');
    expect($('laptop-pairing')?.getAttribute('data-pairing')).toBe('unpaired');

    await act(async () => {
      type($('laptop-pair-username'), 'adam');
      type($('laptop-pair-code'), 'abcd-efgh');
      type($('laptop-pair-label'), 'Desk');
    });
    await act(async () => { ($('laptop-pair-submit') as HTMLButtonElement).click(); });
    await flush();
    expect(shell.invoke).toHaveBeenCalledWith('laptop_pair', { username: 'adam', code: 'ABCDEFGH', label: 'Desk' });
    expect($('laptop-pairing')?.getAttribute('data-pairing')).toBe('paired');
    expect($('laptop-paired-as')?.textContent).toBe('Paired as adam (Administrator) · key …ab12cd');
    const username = $('admin-signin-username') as HTMLInputElement;
    expect(username.value).toBe('adam');
    expect(username.readOnly).toBe(true);

    const password = $('admin-signin-password') as HTMLInputElement;
    password.value = PASSWORD;
    await act(async () => { ($('admin-signin-submit') as HTMLButtonElement).click(); });
    await flush();
    expect(password.value).toBe('');
    expect(shell.invoke).toHaveBeenCalledWith('laptop_sign_in', { password: PASSWORD });
    expect($('admin-session')?.textContent).toContain('Signed in as adam (Administrator)');
    expect($('admin-accounts')).not.toBeNull();
    expect($('admin-accounts-readonly')).toBeNull();
    expect($('admin-create-open')).not.toBeNull();
    expect($('admin-set-password-open')).toBeNull();
    expect($('admin-reset-password')).toBeNull();
    expect($('admin-pair-open')).toBeNull();
    expect($('admin-dynatrace')).not.toBeNull();
    expect($('admin-logos')).toBeNull();
    expect($('admin-wiki')).not.toBeNull();
    expect($('admin-wiki-upload-button')).not.toBeNull();
    expect(shell.invoke).toHaveBeenCalledWith('laptop_command', expect.objectContaining({ command: 'dynatrace.status' }));
    expect(dom.host?.innerHTML).not.toContain(PASSWORD);

    shell.errors.push({ code: 'locked', message: REVOKED_MESSAGE });
    shell.revoke();
    await act(async () => { ($('admin-audit-verify') as HTMLButtonElement).click(); });
    await flush();
    expect($('laptop-pairing')?.getAttribute('data-pairing')).toBe('revoked');
    expect($('laptop-revoked')?.textContent).toBe("This laptop's pairing was revoked.");
    expect($('laptop-pair-submit')).not.toBeNull();
    expect($('laptop-forget')).not.toBeNull();
    expect($('admin-session')).toBeNull();
  });

  it('shows the secret-store message when the keyring is missing', async () => {
    const shell = fakeShell();
    shell.invoke.mockImplementation(async (cmd: string) =>
      cmd === 'connection_info'
        ? { mode: 'client', serverUrl: 'http://10.0.0.5:8090', passphraseAvailable: false, secretStorage: 'memory-only' }
        : { available: true, pairing: 'storeUnavailable', device: null, session: null });
    await dom.render(<TransportProvider transport={transport}><Administration w={{ __TAURI__: { core: { invoke: shell.invoke } } }} /></TransportProvider>);
    await flush();
    expect($('laptop-pairing')?.getAttribute('data-pairing')).toBe('storeUnavailable');
    expect($('laptop-store-unavailable')?.textContent).toContain('secret store (keyring) is not available');
    expect($('laptop-pair-submit')).toBeNull();
  });
});
