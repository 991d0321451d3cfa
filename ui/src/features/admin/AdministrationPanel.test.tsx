// Markup tests for Settings → Administration, rendered from controller states: the sign-in form
// (labelled, blank password input, autocomplete off), the session header with "Locks at HH:MM",
// the accounts with kind, role, status and password Configured / Not configured and their devices
// grouped under them — with no secret anywhere in the HTML —, what an Owner, an Administrator and
// a Publisher may see, buttons disabled while a request runs, the dialogs' password inputs, errors
// as role="alert" and notices as role="status", and the pairing code's live countdown.
import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { adminSnapshot, type AdminRole } from '../../transport/desktop';
import { AdministrationView } from './AdministrationPanel';
import { AdminController, type AdminDialog, type AdminState } from './adminController';
import { LOCKED_MESSAGE } from './adminModel';
import { ADMIN_ID, LEAKS, LOCK_AT, PASSWORD, PUB_ID, fakeAdminShell, snapshotFixture } from './adminTestkit';

const ctl = new AdminController(fakeAdminShell().bridge);
/** The fake server's snapshot as the bridge hands it over (extra secret fields dropped). */
const snapshot = adminSnapshot(snapshotFixture());

const USERS: Record<AdminRole, string> = { owner: 'olivia', administrator: 'adam', publisher: 'pia' };

function session(role: AdminRole, patch: Partial<AdminState> = {}): AdminState {
  return { phase: 'session', session: { username: USERS[role], role, lockAtMs: LOCK_AT }, snapshot, busy: false, message: null, dialog: null, ...patch };
}

const render = (state: AdminState) => renderToStaticMarkup(<AdministrationView state={state} ctl={ctl} />);
const signedOut = (patch: Partial<AdminState> = {}): AdminState => ({ phase: 'signedOut', session: null, snapshot: null, busy: false, message: null, dialog: null, ...patch });
const inputTag = (html: string, testId: string) => html.match(new RegExp(`<input[^>]*data-testid="${testId}"[^>]*>`))?.[0] ?? '';
const count = (html: string, testId: string) => html.split(`data-testid="${testId}"`).length - 1;

afterEach(() => vi.useRealTimers());

describe('sign-in form', () => {
  it('has labelled fields and a blank password input with autocomplete off', () => {
    const html = render(signedOut());
    expect(html).toContain('<span class="field-label">Username</span>');
    expect(html).toContain('<span class="field-label">Password</span>');
    const pw = inputTag(html, 'admin-signin-password');
    expect(pw).toContain('type="password"');
    expect(pw).toMatch(/autocomplete="off"/i);
    expect(pw).not.toContain('value=');
    expect(html).not.toContain('admin-session');
  });

  it('shows the locked message as an alert', () => {
    const html = render(signedOut({ message: { text: LOCKED_MESSAGE, error: true } }));
    expect(html).toContain(`role="alert" data-testid="admin-message">${LOCKED_MESSAGE}</p>`);
  });

  it('shows a short note outside server mode and nothing while loading but a status', () => {
    expect(render({ ...signedOut(), phase: 'unavailable' })).toContain('data-testid="admin-unavailable"');
    expect(render({ ...signedOut(), phase: 'loading' })).toContain('role="status">Checking administration…');
  });
});

describe('session view', () => {
  it('shows every account with its role, status and password state, devices grouped under it, and no secret', () => {
    const html = render(session('owner'));
    expect(html).toContain('Signed in as <strong>olivia</strong> (Owner)');
    expect(html).toContain('data-testid="admin-lock-at">Locks at 14:05</span>');
    expect(count(html, 'admin-account')).toBe(4);
    for (const name of ['Olivia Owner', 'Adam Admin', 'Pia Publisher', 'Pete Spare', 'olivia', 'adam', 'pia', 'pete']) expect(html).toContain(name);
    expect([...html.matchAll(/data-testid="admin-role">([^<]*)</g)].map((m) => m[1])).toEqual(['Owner', 'Administrator', 'Publisher', '—']);
    expect([...html.matchAll(/data-testid="admin-password">([^<]*)</g)].map((m) => m[1])).toEqual(['Configured', 'Configured', 'Configured', 'Not configured']);
    expect(html).toContain('<td>Inactive</td>');
    // Devices follow their account's row inside the account's group.
    const pia = html.slice(html.indexOf(`data-account="${PUB_ID}"`));
    expect(pia.slice(0, pia.indexOf('</tbody>'))).toMatch(/NOC laptop 3.*noc-lt-03.*active.*…ab12cd.*Old tablet.*tab-01.*revoked.*…ff0011/s);
    expect(count(html, 'admin-revoke')).toBe(2);
    expect(html).toContain('data-testid="admin-publisher">Pia Publisher (pia)</dd>');
    for (const secret of [...LEAKS, PASSWORD]) expect(html).not.toContain(secret);
  });

  it('gives the Owner every action', () => {
    const html = render(session('owner'));
    for (const id of ['admin-create-open', 'admin-owner-transfer', 'admin-publisher-assign', 'admin-audit-verify', 'admin-lock']) expect(html, id).toContain(`data-testid="${id}"`);
    expect(count(html, 'admin-rename-open')).toBe(4);
    expect(count(html, 'admin-pair-open')).toBe(4);
    // The Owner's own account cannot be deactivated (ownership moves first).
    expect(count(html, 'admin-deactivate')).toBe(2);
    expect(count(html, 'admin-activate')).toBe(1);
    expect(count(html, 'admin-reset-password')).toBe(3);
    expect(count(html, 'admin-set-password-open')).toBe(1);
  });

  it('does not show an Administrator the Owner-only actions', () => {
    const html = render(session('administrator'));
    expect(html).not.toContain('admin-owner-transfer');
    expect(html).toContain('data-testid="admin-publisher-assign"');
    // Publisher-kind accounts only; devices of those and of the Administrator itself.
    expect(count(html, 'admin-rename-open')).toBe(2);
    expect(html).not.toContain('aria-label="Rename olivia"');
    expect(html).not.toContain('aria-label="Reset the password of adam"');
    expect(count(html, 'admin-pair-open')).toBe(3);
    expect(html).toContain(`aria-label="Pair a device to adam"`);
    expect(count(html, 'admin-revoke')).toBe(1);
    const create = render(session('administrator', { dialog: { kind: 'create' } }));
    expect(create).toContain('<option value="publisher" selected="">Publisher</option></select>');
    expect(create).not.toContain('<option value="administrator">');
  });

  it('gives a Publisher session no actions', () => {
    const html = render(session('publisher'));
    for (const id of ['admin-create-open', 'admin-rename-open', 'admin-pair-open', 'admin-revoke', 'admin-publisher-assign', 'admin-owner-transfer', 'admin-audit-verify']) {
      expect(html, id).not.toContain(`data-testid="${id}"`);
    }
    expect(html).toContain('data-testid="admin-lock"');
  });

  it('disables every button while a request runs', () => {
    const html = render(session('owner', { busy: true }));
    const buttons = html.match(/<button[^>]*>/g) ?? [];
    expect(buttons.length).toBeGreaterThan(10);
    expect(buttons.filter((b) => !b.includes('disabled=""'))).toEqual([]);
    expect(html).toContain('role="status">Working…');
    expect(inputTag(render(signedOut({ busy: true })), 'admin-signin-password')).toBeTruthy();
    expect(render(signedOut({ busy: true }))).toMatch(/data-testid="admin-signin-submit" disabled=""/);
  });

  it('shows notices as status and errors as alerts', () => {
    expect(render(session('owner', { message: { text: 'Device revoked.', error: false } }))).toContain('role="status" data-testid="admin-message">Device revoked.</p>');
    expect(render(session('owner', { message: { text: 'Only the Owner can transfer ownership.', error: true } }))).toContain('role="alert" data-testid="admin-message">Only the Owner');
  });
});

describe('dialogs', () => {
  const dialog = (d: AdminDialog, role: AdminRole = 'owner') => render(session(role, { dialog: d }));

  it('asks for a new password in a blank new-password input', () => {
    const html = dialog({ kind: 'setPassword', accountId: PUB_ID, error: 'Enter the new password.' });
    const pw = inputTag(html, 'admin-new-password');
    expect(pw).toContain('type="password"');
    expect(pw).toMatch(/autocomplete="new-password"/i);
    expect(pw).not.toContain('value=');
    expect(html).toContain('<span class="field-label">New password</span>');
    expect(html).toContain('role="alert">Enter the new password.</p>');
    expect(html).toContain('Reset password');
  });

  it('asks for the signed-in password in a blank input, with the server message as an alert', () => {
    const html = dialog({ kind: 'freshPassword', error: 'Wrong password.' });
    const pw = inputTag(html, 'admin-fresh-password');
    expect(pw).toContain('type="password"');
    expect(pw).toMatch(/autocomplete="off"/i);
    expect(pw).not.toContain('value=');
    expect(html).toContain('<span class="field-label">Your password</span>');
    expect(html).toContain('role="alert">Wrong password.</p>');
  });

  it('confirms destructive actions in the app confirm dialog', () => {
    const html = dialog({ kind: 'confirm', action: { kind: 'transfer', accountId: ADMIN_ID }, confirmation: { title: 'Transfer ownership?', message: 'Adam Admin (adam) becomes the Owner.', confirmLabel: 'Transfer ownership' } });
    expect(html).toContain('data-testid="confirm-dialog"');
    expect(html).toContain('Adam Admin (adam) becomes the Owner.');
    expect(html).toContain('data-testid="confirm-ok" class="button button-danger">Transfer ownership</button>');
  });

  it('shows the pairing code once, large, with a live countdown until it expires', () => {
    vi.useFakeTimers();
    const t0 = LOCK_AT - 3_600_000;
    vi.setSystemTime(t0);
    const code: AdminDialog = { kind: 'pairingCode', accountId: PUB_ID, label: 'NOC laptop 4', code: 'K7QX2M9P', expiresAtMs: t0 + 600_000 };
    let html = dialog(code);
    expect(html).toContain('<code>K7QX2M9P</code>');
    expect(html).toContain('role="status" data-testid="admin-pairing-expiry">Expires in 10:00</p>');
    expect(html).toContain('The code is shown once');
    vi.advanceTimersByTime(1_000);
    expect(dialog(code)).toContain('Expires in 9:59');
    vi.advanceTimersByTime(9 * 60_000);
    expect(dialog(code)).toContain('Expires in 0:59');
    vi.advanceTimersByTime(58_999);
    expect(dialog(code)).toContain('Expires in 0:01');
    vi.advanceTimersByTime(1);
    html = dialog(code);
    expect(html).toContain('This code has expired');
    expect(html).not.toContain('K7QX2M9P');
  });
});
