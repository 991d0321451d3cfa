// Markup tests for the Dynatrace section of Settings → Administration, rendered from controller
// states through the whole screen: an Owner and an Administrator see it, a Publisher does not;
// the labelled fields (URL, profiles, matcher, workflow id), the token as a password field that
// never carries a value, the token state in words with its storage, Save disabled until the form
// changes, Remove token and Test disabled without a token, everything disabled while a request
// runs; notices as role="status", errors as role="alert"; the test result; the removal's Confirm.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { adminSnapshot, type AdminRole } from '../../transport/desktop';
import { AdministrationView, type DynatracePanel } from './AdministrationPanel';
import { AdminController, type AdminState } from './adminController';
import { LOCK_AT, fakeAdminShell, snapshotFixture } from './adminTestkit';
import { DynatraceController, type DynatraceState } from './dynatraceController';
import { dynatraceStatus, formFromStatus } from './dynatraceModel';

const shell = fakeAdminShell();
const ctl = new AdminController(shell.bridge);
const dtCtl = new DynatraceController(shell.bridge, ctl);
const snapshot = adminSnapshot(snapshotFixture());
const USERS: Record<AdminRole, string> = { owner: 'olivia', administrator: 'adam', publisher: 'pia' };

function session(role: AdminRole, patch: Partial<AdminState> = {}): AdminState {
  return { phase: 'session', session: { username: USERS[role], role, lockAtMs: LOCK_AT }, snapshot, busy: false, message: null, dialog: null, ...patch };
}

const status = (token: boolean) =>
  dynatraceStatus({ revision: 3, environmentUrl: 'https://abc12345.apps.dynatrace.com', token: token ? 'configured' : 'not_configured', tokenStorage: 'os_store', scope: { kind: 'alerting-profile', profiles: ['NOC'] }, workflowId: '' });

function panel(patch: Partial<DynatraceState> = {}, token = true): DynatracePanel {
  const s = status(token);
  return { state: { phase: 'ready', status: s, loadError: null, form: formFromStatus(s), message: null, test: null, confirmingRemove: false, ...patch }, ctl: dtCtl };
}

const render = (state: AdminState, p: DynatracePanel = panel()) => renderToStaticMarkup(<AdministrationView state={state} ctl={ctl} dynatrace={p} />);
const section = (html: string) => html.slice(html.indexOf('data-testid="admin-dynatrace"'));
const button = (html: string, testId: string) => section(html).match(new RegExp(`<button[^>]*data-testid="${testId}"[^>]*>`))?.[0] ?? '';

describe('Dynatrace section', () => {
  it('shown to an Owner and an Administrator, not to a Publisher or signed out', () => {
    expect(render(session('owner'))).toContain('data-testid="admin-dynatrace"');
    expect(render(session('administrator'))).toContain('data-testid="admin-dynatrace"');
    expect(render(session('publisher'))).not.toContain('data-testid="admin-dynatrace"');
    expect(render({ ...session('owner'), phase: 'signedOut', session: null })).not.toContain('data-testid="admin-dynatrace"');
  });

  it('labelled fields; the token is a password field without a value; its state in words', () => {
    const html = section(render(session('owner')));
    expect(html).toMatch(/<h3 id="admin-dynatrace-title">Dynatrace<\/h3>/);
    expect(html).toMatch(/<span class="field-label">Environment URL<\/span><input[^>]*type="url"[^>]*value="https:\/\/abc12345.apps.dynatrace.com"/);
    expect(html).toMatch(/<span class="field-label">Alerting profiles \(one per line; none for every problem\)<\/span><textarea[^>]*>NOC<\/textarea>/);
    expect(html).toMatch(/<span class="field-label">Custom DQL matcher/);
    expect(html).toMatch(/<span class="field-label">Workflow id/);
    const token = html.match(/<input[^>]*data-testid="admin-dynatrace-token"[^>]*>/)?.[0] ?? '';
    expect(token).toContain('type="password"');
    expect(token).not.toContain('value=');
    expect(html).toMatch(/data-testid="admin-dynatrace-token-state">Configured \(kept in the operating system&#x27;s secret store\)</);
    expect(html).toContain('Problems of the alerting profile NOC');
    expect(section(render(session('owner'), panel({}, false)))).toMatch(/data-testid="admin-dynatrace-token-state">Not configured</);
  });

  it('Save waits for a change; Remove and Test need a token; all disabled while busy', () => {
    const html = render(session('owner'));
    expect(button(html, 'admin-dynatrace-save')).toContain('disabled');
    const changed = panel();
    changed.state = { ...changed.state, form: { ...changed.state.form, workflowId: 'wf-1' } };
    expect(button(render(session('owner'), changed), 'admin-dynatrace-save')).not.toContain('disabled');
    expect(button(html, 'admin-dynatrace-token-remove')).not.toContain('disabled');
    expect(button(html, 'admin-dynatrace-test')).not.toContain('disabled');
    const noToken = render(session('owner'), panel({}, false));
    expect(button(noToken, 'admin-dynatrace-token-remove')).toContain('disabled');
    expect(button(noToken, 'admin-dynatrace-test')).toContain('disabled');
    const busy = render(session('owner', { busy: true }), changed);
    for (const id of ['admin-dynatrace-save', 'admin-dynatrace-token-save', 'admin-dynatrace-token-remove', 'admin-dynatrace-test']) expect(button(busy, id)).toContain('disabled');
  });

  it('notices, errors, the test result and the removal Confirm', () => {
    expect(section(render(session('owner'), panel({ message: { text: 'Dynatrace settings saved.', error: false } })))).toMatch(/role="status" data-testid="admin-dynatrace-message">Dynatrace settings saved./);
    expect(section(render(session('owner'), panel({ message: { text: 'The record changed meanwhile; reload and retry.', error: true } })))).toMatch(/role="alert" data-testid="admin-dynatrace-message">The record changed meanwhile; reload and retry./);
    expect(section(render(session('owner'), panel({ test: { ok: true, message: 'Dynatrace answered.' } })))).toMatch(/role="status" data-testid="admin-dynatrace-test-result">Connection works: Dynatrace answered./);
    expect(section(render(session('owner'), panel({ test: { ok: false, message: 'Dynatrace rejected the token.' } })))).toMatch(/role="alert" data-testid="admin-dynatrace-test-result">Connection failed: Dynatrace rejected the token./);
    expect(render(session('owner'), panel({ confirmingRemove: true }))).toContain('Remove the Dynatrace platform token?');
  });

  it('loading and a read failure', () => {
    expect(section(render(session('owner'), panel({ phase: 'loading', status: null })))).toMatch(/role="status">Reading the Dynatrace settings…/);
    const failed = section(render(session('owner'), panel({ phase: 'failed', status: null, loadError: 'The Dynatrace settings could not be read: x' })));
    expect(failed).toMatch(/role="alert" data-testid="admin-dynatrace-load-error">The Dynatrace settings could not be read: x/);
    expect(failed).not.toContain('admin-dynatrace-form');
  });
});
