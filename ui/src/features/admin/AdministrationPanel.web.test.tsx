// Settings → Administration on Relay Web (surface 'web'): markup from controller states — the
// "Protected sign-in" form, the note that accounts are managed on the server PC, the Wiki for every
// role, a read-only accounts table for an Owner or Administrator with no account-management control
// at all, Verify audit log, and never the Logos or Dynatrace sections (even when handed them) — and
// the flow over WebProtectedSession with a fake gateway: a Publisher's sign-in reads no snapshot
// and shows only the Wiki, an Owner's reads the snapshot through /web/api/protected/command.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { adminSnapshot, type AdminRole } from '../../transport/desktop';
import { json } from '../../transport/testkit';
import { WebProtectedSession } from '../../transport/webProtected';
import { AdministrationView, WEB_NOTE, type DynatracePanel, type LogosPanel, type WikiPanel } from './AdministrationPanel';
import { AdminController, type AdminState } from './adminController';
import { LOCK_AT, fakeAdminShell, snapshotFixture } from './adminTestkit';
import { DynatraceController } from './dynatraceController';
import { dynatraceStatus, formFromStatus } from './dynatraceModel';
import { LogosController } from './logosController';
import { WikiController } from './wikiController';
import { wikiLibrary } from './wikiModel';

const shell = fakeAdminShell();
const ctl = new AdminController(shell.bridge);
const snapshot = adminSnapshot(snapshotFixture());
const USERS: Record<AdminRole, string> = { owner: 'olivia', administrator: 'adam', publisher: 'pia' };

function session(role: AdminRole, patch: Partial<AdminState> = {}): AdminState {
  return { phase: 'session', session: { username: USERS[role], role, lockAtMs: LOCK_AT }, snapshot: role === 'publisher' ? null : snapshot, busy: false, message: null, dialog: null, ...patch };
}
const signedOut: AdminState = { phase: 'signedOut', session: null, snapshot: null, busy: false, message: null, dialog: null };

const library = wikiLibrary({
  categories: [{ id: 'cat_1', name: 'Network', revision: 1, systemKey: '' }],
  documents: [{ id: 'doc_1', revision: 2, title: 'VPN runbook', fileName: 'vpn.pdf', categoryId: 'cat_1', documentType: 'sop', pageCount: 3, lifecycleState: 'active', searchIndexState: 'ready' }],
});
const wiki: WikiPanel = {
  state: { phase: 'ready', library, loadError: null, batchId: null, queue: [], message: null, dialog: null },
  ctl: new WikiController(shell.bridge, ctl),
};
const logos: LogosPanel = {
  state: { previews: { company: { status: 'none', url: null, error: null }, footer: { status: 'none', url: null, error: null } }, reading: false, message: null, removing: null },
  ctl: new LogosController(shell.bridge, ctl, async () => null),
};
const dtStatus = dynatraceStatus({ revision: 1, environmentUrl: 'https://abc.apps.dynatrace.com', token: 'configured', scope: { kind: 'all' } });
const dynatrace: DynatracePanel = {
  state: { phase: 'ready', status: dtStatus, loadError: null, form: formFromStatus(dtStatus), message: null, test: null, confirmingRemove: false },
  ctl: new DynatraceController(shell.bridge, ctl),
};

const render = (state: AdminState) =>
  renderToStaticMarkup(<AdministrationView state={state} ctl={ctl} wiki={wiki} logos={logos} dynatrace={dynatrace} surface="web" />);

/** Every control that changes an account, a password, a device or the authority. */
const MANAGEMENT = [
  'admin-create-open', 'admin-rename-open', 'admin-reset-password', 'admin-set-password-open', 'admin-deactivate', 'admin-activate',
  'admin-pair-open', 'admin-revoke', 'admin-publisher-select', 'admin-publisher-assign', 'admin-owner-select', 'admin-owner-transfer',
];

describe('Relay Web Administration markup', () => {
  it('signed out: the Protected sign-in form with its fields and the server-PC note', () => {
    const html = render(signedOut);
    expect(html).toContain('<h3>Protected sign-in</h3>');
    expect(html).toMatch(/<form[^>]*data-testid="admin-signin"[^>]*aria-label="Protected sign-in"/);
    expect(html).toContain('data-testid="admin-signin-username"');
    expect(html).toMatch(/<input[^>]*data-testid="admin-signin-password"[^>]*type="password"[^>]*autoComplete="off"|<input[^>]*type="password"[^>]*data-testid="admin-signin-password"/i);
    expect(html).toContain('data-testid="admin-signin-submit"');
    expect(html).toContain(`data-testid="admin-web-note">${WEB_NOTE}</p>`);
    expect(html).toContain('data-surface="web"');
  });

  it('an Owner sees the read-only accounts, Verify audit log and the Wiki — no management control, no Logos, no Dynatrace', () => {
    const html = render(session('owner'));
    expect(html).toContain('Signed in as <strong>olivia</strong> (Owner)');
    expect(html).toContain('data-testid="admin-lock-at">Locks at');
    expect(html).toContain('data-testid="admin-lock"');
    expect(html).toContain('data-testid="admin-accounts-readonly"');
    expect(html).toContain('aria-label="Accounts and devices (read only)"');
    expect(html.split('data-testid="admin-account"').length - 1).toBe(snapshot.accounts.length);
    expect(html).toContain('data-testid="admin-device"');
    expect(html).toContain('data-testid="admin-audit-verify"');
    expect(html).toContain('data-testid="admin-wiki"');
    expect(html).toContain('data-testid="admin-wiki-upload-button"');
    expect(html).toContain('Upload PDFs…');
    for (const id of MANAGEMENT) expect(html, id).not.toContain(`data-testid="${id}"`);
    expect(html).not.toContain('data-testid="admin-logos"');
    expect(html).not.toContain('data-testid="admin-dynatrace"');
    // The accounts table has no button at all; the only buttons are the session's and the Wiki's.
    const accounts = html.slice(html.indexOf('data-testid="admin-accounts-readonly"'), html.indexOf('data-testid="admin-wiki"'));
    expect(accounts).not.toContain('<button');
    expect(html).toContain(WEB_NOTE);
  });

  it('an Administrator sees the same read-only view', () => {
    const html = render(session('administrator'));
    expect(html).toContain('data-testid="admin-accounts-readonly"');
    expect(html).toContain('data-testid="admin-audit-verify"');
    for (const id of MANAGEMENT) expect(html, id).not.toContain(`data-testid="${id}"`);
    expect(html).not.toContain('data-testid="admin-logos"');
    expect(html).not.toContain('data-testid="admin-dynatrace"');
  });

  it('a Publisher sees only the Wiki section', () => {
    const html = render(session('publisher', { snapshot }));
    expect(html).toContain('(Publisher)');
    expect(html).toContain('data-testid="admin-wiki"');
    expect(html).toContain('data-testid="admin-wiki-upload-button"');
    expect(html).not.toContain('data-testid="admin-accounts"');
    expect(html).not.toContain('data-testid="admin-accounts-readonly"');
    expect(html).not.toContain('data-testid="admin-audit-verify"');
    expect(html).not.toContain('data-testid="admin-logos"');
    expect(html).not.toContain('data-testid="admin-dynatrace"');
  });

  it('the desktop surface is unchanged: the full table and its controls, no web note', () => {
    const html = renderToStaticMarkup(<AdministrationView state={session('owner')} ctl={ctl} />);
    expect(html).toContain('data-testid="admin-create-open"');
    expect(html).not.toContain('admin-accounts-readonly');
    expect(html).not.toContain('admin-web-note');
    expect(html).not.toContain('Protected sign-in');
  });
});

describe('Relay Web Administration flow', () => {
  function gateway(role: AdminRole) {
    const calls: { path: string; body: unknown }[] = [];
    const status = (signedIn: boolean) => ({ available: true, session: signedIn ? { username: USERS[role], role, lockAtMs: LOCK_AT } : null });
    let signedIn = false;
    const webFetch = vi.fn(async (path: string, init?: RequestInit) => {
      const body = typeof init?.body === 'string' ? JSON.parse(init.body) : null;
      calls.push({ path, body });
      if (path.endsWith('/status')) return json(200, status(signedIn));
      if (path.endsWith('/sign-in')) {
        signedIn = true;
        return json(200, status(true));
      }
      if (path.endsWith('/command')) {
        if (body.command === 'admin.snapshot' && role === 'publisher') return json(403, { status: 403, message: 'Forbidden.', data: { code: 'forbidden' } });
        return json(200, { result: body.command === 'admin.snapshot' ? snapshotFixture() : {} });
      }
      return json(404, {});
    });
    return { calls, webFetch };
  }

  it('a Publisher signs in and reads no snapshot', async () => {
    const { calls, webFetch } = gateway('publisher');
    const admin = new AdminController(new WebProtectedSession(webFetch), 60_000);
    await admin.start();
    expect(admin.getState().phase).toBe('signedOut');
    admin.fields.signIn.ref({ value: 'pw' } as HTMLInputElement);
    await admin.signIn('pia');
    expect(admin.getState()).toMatchObject({ phase: 'session', session: { role: 'publisher' }, snapshot: null, message: null });
    expect(calls.some((c) => (c.body as { command?: string } | null)?.command === 'admin.snapshot')).toBe(false);
    admin.stop();
  });

  it('an Owner signs in and reads the snapshot through the protected command route', async () => {
    const { calls, webFetch } = gateway('owner');
    const admin = new AdminController(new WebProtectedSession(webFetch), 60_000);
    await admin.start();
    admin.fields.signIn.ref({ value: 'pw' } as HTMLInputElement);
    await admin.signIn('olivia');
    expect(admin.getState().snapshot?.accounts.length).toBe(snapshot.accounts.length);
    expect(calls.find((c) => c.path === '/web/api/protected/command')?.body).toEqual({ command: 'admin.snapshot', payload: {}, expectedRevision: null });
    admin.stop();
  });
});
