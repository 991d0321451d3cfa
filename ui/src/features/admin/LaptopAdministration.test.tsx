// Settings → Administration on a paired laptop (surface 'laptop'): the pairing section's markup for
// each state (storeUnavailable, unpaired, revoked, paired) with its testids; the protected screen
// when paired (read-only username; for an Owner/Administrator the accounts table with its actions
// except Set/Reset password and Pair device, which stay on the server PC, plus Verify audit log and
// the Dynatrace section; the Wiki with upload for every role; never the Logos; the server PC's
// screen unchanged); and the pairing flow (LaptopController over LaptopProtectedSession and a fake
// shell): the code as XXXX-XXXX or 8 characters, the default label, Forget after a confirmation, a
// revoked pairing showing as such.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { DesktopBridge, REVOKED_MESSAGE, adminSnapshot, laptopStatus, type AdminRole, type LaptopStatus } from '../../transport/desktop';
import { LaptopProtectedSession } from '../../transport/laptopProtected';
import { AdministrationView, LAPTOP_NOTE, WEB_NOTE, type DynatracePanel, type LogosPanel } from './AdministrationPanel';
import { AdminController, type AdminState } from './adminController';
import { LOCK_AT, PASSWORD, fakeAdminShell, fakeInput, snapshotFixture } from './adminTestkit';
import { LaptopPairingView, STORE_UNAVAILABLE_TEXT } from './LaptopAdministration';
import { DynatraceController } from './dynatraceController';
import { dynatraceStatus, formFromStatus } from './dynatraceModel';
import { CODE_HINT, LaptopController, normalizePairingCode, type LaptopState } from './laptopController';
import { LogosController } from './logosController';
import { WikiController } from './wikiController';
import { wikiLibrary } from './wikiModel';

const USERS: Record<AdminRole, string> = { owner: 'olivia', administrator: 'adam', publisher: 'pia' };
const device = (role: AdminRole) => ({ username: USERS[role], label: 'NOC laptop', fingerprintSuffix: 'ab12cd', role });
const status = (pairing: string, role: AdminRole = 'administrator', signedIn = false): LaptopStatus =>
  laptopStatus({
    available: true,
    pairing,
    device: pairing === 'paired' ? device(role) : null,
    session: signedIn ? { username: USERS[role], role, lockAtMs: LOCK_AT } : null,
  });
const laptopState = (s: LaptopStatus | null, patch: Partial<LaptopState> = {}): LaptopState => ({ status: s, loadError: null, busy: false, message: null, confirmingForget: false, ...patch });
const pairingCtl = { pair: vi.fn(), askForget: vi.fn(), cancelForget: vi.fn(), forget: vi.fn() };
const renderPairing = (state: LaptopState) => renderToStaticMarkup(<LaptopPairingView state={state} ctl={pairingCtl} />);

describe('laptop pairing section markup', () => {
  it('storeUnavailable: the secret store message and no pair form', () => {
    const html = renderPairing(laptopState(status('storeUnavailable')));
    expect(html).toMatch(/data-testid="laptop-pairing" data-pairing="storeUnavailable"/);
    expect(html).toContain('data-testid="laptop-store-unavailable"');
    expect(html).toContain('secret store (keyring) is not available');
    expect(STORE_UNAVAILABLE_TEXT).toContain('cannot be paired');
    expect(html).not.toContain('laptop-pair-submit');
    expect(html).not.toContain('laptop-forget');
  });

  it('unpaired: the Pair this laptop form with its fields and the default label', () => {
    const html = renderPairing(laptopState(status('unpaired')));
    expect(html).toMatch(/data-pairing="unpaired"/);
    for (const id of ['laptop-pair-username', 'laptop-pair-code', 'laptop-pair-label', 'laptop-pair-submit']) expect(html, id).toContain(`data-testid="${id}"`);
    expect(html).toMatch(/data-testid="laptop-pair-label"[^>]*value="NOC laptop"/);
    expect(html).toContain('placeholder="XXXX-XXXX"');
    expect(html).not.toContain('laptop-forget');
    expect(html).not.toContain('laptop-revoked');
  });

  it('revoked: the notice, the pair form again and Forget pairing', () => {
    const html = renderPairing(laptopState(status('revoked')));
    expect(html).toMatch(/data-pairing="revoked"/);
    expect(html).toContain('data-testid="laptop-revoked">This laptop&#x27;s pairing was revoked.</p>');
    expect(html).toContain('data-testid="laptop-pair-submit"');
    expect(html).toContain('data-testid="laptop-forget"');
  });

  it('paired: who, role and key suffix, and Forget pairing (confirmed first)', () => {
    const html = renderPairing(laptopState(status('paired')));
    expect(html).toMatch(/data-pairing="paired"/);
    expect(html).toContain('data-testid="laptop-paired-as">Paired as <strong>adam</strong> (Administrator) · key …ab12cd</span>');
    expect(html).toContain('data-testid="laptop-forget"');
    expect(html).not.toContain('laptop-pair-submit');
    const confirming = renderPairing(laptopState(status('paired'), { confirmingForget: true }));
    expect(confirming).toContain('data-testid="laptop-forget-confirm"');
    expect(confirming).toContain('data-testid="laptop-forget-cancel"');
  });

  it('before the first status: checking', () => {
    expect(renderPairing(laptopState(null))).toContain('data-pairing="loading"');
  });
});

describe('the laptop protected screen markup', () => {
  const shell = fakeAdminShell();
  const ctl = new AdminController(shell.bridge);
  const snapshot = adminSnapshot(snapshotFixture());
  const library = wikiLibrary({
    categories: [{ id: 'cat_1', name: 'Network', revision: 1, systemKey: '' }],
    documents: [{ id: 'doc_1', revision: 2, title: 'VPN runbook', fileName: 'vpn.pdf', categoryId: 'cat_1', documentType: 'sop', pageCount: 3, lifecycleState: 'active', searchIndexState: 'ready' }],
  });
  const wiki = { state: { phase: 'ready' as const, library, loadError: null, batchId: null, queue: [], message: null, dialog: null }, ctl: new WikiController(shell.bridge, ctl) };
  const logos: LogosPanel = {
    state: { previews: { company: { status: 'none', url: null, error: null }, footer: { status: 'none', url: null, error: null } }, reading: false, message: null, removing: null },
    ctl: new LogosController(shell.bridge, ctl, async () => null),
  };
  const dtStatus = dynatraceStatus({ revision: 1, environmentUrl: 'https://abc.apps.dynatrace.com', token: 'configured', scope: { kind: 'all' } });
  const dynatrace: DynatracePanel = {
    state: { phase: 'ready', status: dtStatus, loadError: null, form: formFromStatus(dtStatus), message: null, test: null, confirmingRemove: false },
    ctl: new DynatraceController(shell.bridge, ctl),
  };
  const session = (role: AdminRole): AdminState => ({
    phase: 'session', session: { username: USERS[role], role, lockAtMs: LOCK_AT }, snapshot: role === 'publisher' ? null : snapshot, busy: false, message: null, dialog: null,
  });
  // Logos and Dynatrace are handed to every surface: the surface and the role decide what shows.
  const render = (state: AdminState, role: AdminRole = 'administrator') =>
    renderToStaticMarkup(
      <AdministrationView state={state} ctl={ctl} wiki={wiki} logos={logos} dynatrace={dynatrace} surface="laptop" pairedUsername={USERS[role]}
        pairing={<LaptopPairingView state={laptopState(status('paired', role))} ctl={pairingCtl} />} />,
    );
  /** Server PC only: never offered on the laptop. */
  const SERVER_PC_ONLY = ['admin-reset-password', 'admin-set-password-open', 'admin-pair-open'];

  it('signed out: the pairing section, then the sign-in with the paired username read-only', () => {
    const html = render({ phase: 'signedOut', session: null, snapshot: null, busy: false, message: null, dialog: null });
    expect(html).toContain('data-surface="laptop"');
    expect(html).toContain('data-testid="laptop-paired-as"');
    expect(html).toMatch(/<input[^>]*data-testid="admin-signin-username"[^>]*readOnly=""[^>]*value="adam"/);
    expect(html).toMatch(/<input[^>]*data-testid="admin-signin-password"[^>]*type="password"/);
    expect(html).toContain('data-testid="admin-signin-submit"');
    expect(html).toContain(LAPTOP_NOTE);
    expect(html).not.toContain(WEB_NOTE);
    expect(html.indexOf('laptop-pairing')).toBeLessThan(html.indexOf('admin-signin'));
  });

  it('owner: the accounts table with its actions but no password or pairing, Dynatrace, the Wiki with upload; no Logos', () => {
    const html = render(session('owner'), 'owner');
    expect(html).toContain('data-testid="admin-session"');
    expect(html).toContain(`data-testid="admin-laptop-note">${LAPTOP_NOTE}</p>`);
    expect(LAPTOP_NOTE).toBe('Passwords and device pairing are set on the Relay server PC.');
    expect(html).toContain('data-testid="admin-accounts"');
    expect(html).not.toContain('admin-accounts-readonly');
    expect(html.split('data-testid="admin-account"').length - 1).toBe(snapshot.accounts.length);
    for (const id of ['admin-create-open', 'admin-rename-open', 'admin-deactivate', 'admin-activate', 'admin-revoke', 'admin-publisher-select',
      'admin-publisher-assign', 'admin-owner-select', 'admin-owner-transfer', 'admin-audit-verify']) {
      expect(html, id).toContain(`data-testid="${id}"`);
    }
    for (const id of SERVER_PC_ONLY) expect(html, id).not.toContain(`data-testid="${id}"`);
    expect(html).toContain('data-testid="admin-dynatrace"');
    expect(html).toContain('data-testid="admin-wiki"');
    expect(html).toContain('data-testid="admin-wiki-upload-button"');
    expect(html).not.toContain('data-testid="admin-logos"');
  });

  it('administrator: the Publisher-kind actions and the Publisher assignment, no ownership transfer, no password or pairing; Dynatrace', () => {
    const html = render(session('administrator'));
    expect(html).toContain('data-testid="admin-accounts"');
    for (const id of ['admin-create-open', 'admin-rename-open', 'admin-revoke', 'admin-publisher-assign', 'admin-audit-verify']) expect(html, id).toContain(`data-testid="${id}"`);
    for (const id of [...SERVER_PC_ONLY, 'admin-owner-transfer']) expect(html, id).not.toContain(`data-testid="${id}"`);
    expect(html).toContain('data-testid="admin-dynatrace"');
    expect(html).toContain('data-testid="admin-wiki-upload-button"');
    expect(html).not.toContain('data-testid="admin-logos"');
  });

  it('publisher: only the Wiki, with upload', () => {
    const html = render({ ...session('publisher'), snapshot }, 'publisher');
    expect(html).toContain('data-testid="admin-wiki"');
    expect(html).toContain('data-testid="admin-wiki-upload-button"');
    expect(html).not.toContain('data-testid="admin-accounts"');
    expect(html).not.toContain('admin-accounts-readonly');
    expect(html).not.toContain('admin-audit-verify');
    expect(html).not.toContain('data-testid="admin-dynatrace"');
    expect(html).not.toContain('data-testid="admin-logos"');
  });

  it('the server PC (local) keeps everything: passwords, pairing, Logos and Dynatrace, no laptop note', () => {
    const html = renderToStaticMarkup(<AdministrationView state={session('owner')} ctl={ctl} wiki={wiki} logos={logos} dynatrace={dynatrace} />);
    for (const id of ['admin-accounts', 'admin-reset-password', 'admin-set-password-open', 'admin-pair-open', 'admin-owner-transfer', 'admin-logos', 'admin-dynatrace', 'admin-wiki-upload-button']) {
      expect(html, id).toContain(`data-testid="${id}"`);
    }
    expect(html).not.toContain('admin-laptop-note');
  });

  it('a create-account dialog on the laptop offers the kinds the role may create', () => {
    const html = render({ ...session('administrator'), dialog: { kind: 'create' } });
    expect(html).toContain('data-testid="admin-create"');
    expect(html).toContain('<option value="publisher"');
    expect(html).not.toContain('<option value="administrator"');
    expect(html).toContain('set its password on the Relay server PC, then activate it.');
  });
});

describe('the laptop pairing flow', () => {
  function shell(initial: string) {
    let current: Record<string, unknown> = { available: true, pairing: initial, device: null, session: null };
    const errors: unknown[] = [];
    const invoke = vi.fn(async (cmd: string, args?: Record<string, unknown>) => {
      if (errors.length) throw errors.shift();
      if (cmd === 'laptop_pair') current = { available: true, pairing: 'paired', device: { ...device('administrator'), label: args?.label }, session: null };
      if (cmd === 'laptop_forget') current = { available: true, pairing: 'unpaired', device: null, session: null };
      if (cmd === 'laptop_sign_in') current = { ...current, session: { username: 'adam', role: 'administrator', lockAtMs: LOCK_AT } };
      if (cmd === 'laptop_command') return args?.command === 'admin.snapshot' ? snapshotFixture() : {};
      return current;
    });
    const session = new LaptopProtectedSession(new DesktopBridge({ core: { invoke } }));
    return { invoke, session, errors, revoke: () => (current = { available: true, pairing: 'revoked', device: null, session: null }) };
  }

  it('accepts the code as XXXX-XXXX or 8 characters, nothing else', () => {
    expect(normalizePairingCode('abcd-efgh')).toBe('ABCDEFGH');
    expect(normalizePairingCode(' ABCDEFGH ')).toBe('ABCDEFGH');
    expect(normalizePairingCode('ABCD EFGH')).toBe('ABCDEFGH');
    for (const bad of ['', 'ABCDEFG', 'ABCDEFGHJ', 'AB-CDEFGH', 'ABCD_EFGH', 'ABCD--EFGH']) expect(normalizePairingCode(bad), bad).toBeNull();
  });

  it('pairs with the normalized code and the default label; a bad code is refused without a call', async () => {
    const { invoke, session } = shell('unpaired');
    const ctl = new LaptopController(session);
    await ctl.start();
    expect(ctl.getState().status?.pairing).toBe('unpaired');
    await ctl.pair('adam', 'abc', '');
    expect(ctl.getState().message).toEqual({ text: CODE_HINT, error: true });
    expect(invoke.mock.calls.map((c) => c[0])).toEqual(['laptop_status']);
    await ctl.pair(' adam ', 'abcd-efgh', '  ');
    expect(invoke).toHaveBeenLastCalledWith('laptop_pair', { username: 'adam', code: 'ABCDEFGH', label: 'NOC laptop' });
    expect(ctl.getState().status?.pairing).toBe('paired');
    expect(ctl.getState().message?.error).toBe(false);
    ctl.stop();
  });

  it('a refused code shows the refusal without the code', async () => {
    const { session, errors } = shell('unpaired');
    const ctl = new LaptopController(session);
    await ctl.start();
    errors.push({ code: 'rejected', message: 'The pairing code ABCDEFGH is wrong or expired.' });
    await ctl.pair('adam', 'ABCD-EFGH', 'Desk');
    expect(ctl.getState().message?.error).toBe(true);
    expect(ctl.getState().message?.text).not.toContain('ABCDEFGH');
    expect(ctl.getState().status?.pairing).toBe('unpaired');
    ctl.stop();
  });

  it('forgets only after the confirmation', async () => {
    const { invoke, session } = shell('unpaired');
    const ctl = new LaptopController(session);
    await ctl.start();
    await ctl.pair('adam', 'ABCDEFGH', 'Desk');
    await ctl.forget();
    expect(invoke.mock.calls.map((c) => c[0])).not.toContain('laptop_forget');
    ctl.askForget();
    expect(ctl.getState().confirmingForget).toBe(true);
    ctl.cancelForget();
    expect(ctl.getState().confirmingForget).toBe(false);
    ctl.askForget();
    await ctl.forget();
    expect(invoke).toHaveBeenLastCalledWith('laptop_forget', undefined);
    expect(ctl.getState().status?.pairing).toBe('unpaired');
    ctl.stop();
  });

  it('signs in as the paired user with the password cleared; a revoked pairing shows as revoked', async () => {
    const { invoke, session, errors, revoke } = shell('unpaired');
    const laptop = new LaptopController(session);
    await laptop.start();
    await laptop.pair('adam', 'ABCDEFGH', 'Desk');
    const admin = new AdminController(session, 60_000);
    await admin.start();
    expect(admin.getState().phase).toBe('signedOut');
    const input = fakeInput(PASSWORD);
    admin.fields.signIn.ref(input);
    await admin.signIn('adam');
    expect(input.value).toBe('');
    expect(invoke).toHaveBeenCalledWith('laptop_sign_in', { password: PASSWORD });
    expect(admin.getState()).toMatchObject({ phase: 'session', session: { username: 'adam', role: 'administrator' } });
    expect(admin.getState().snapshot?.accounts.length).toBe(4);
    expect(JSON.stringify(admin.getState())).not.toContain(PASSWORD);
    // The server revoked the pairing: the next command is refused as locked, the status re-read.
    errors.push({ code: 'locked', message: REVOKED_MESSAGE });
    revoke();
    await admin.request({ kind: 'auditVerify' });
    expect(admin.getState().phase).toBe('signedOut');
    expect(laptop.getState().status?.pairing).toBe('revoked');
    admin.stop();
    laptop.stop();
  });

  it('a revoked refusal on pairing shows its own message', async () => {
    const { session, errors } = shell('revoked');
    const ctl = new LaptopController(session);
    await ctl.start();
    errors.push({ code: 'locked', message: REVOKED_MESSAGE });
    await ctl.pair('adam', 'ABCDEFGH', 'Desk');
    expect(ctl.getState().message).toEqual({ text: REVOKED_MESSAGE, error: true });
    ctl.stop();
  });
});
