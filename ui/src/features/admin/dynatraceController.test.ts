// The Dynatrace section's model and flow against the fake server-mode shell (through the real
// DesktopBridge and the real AdminController): the status read field by field (no token value
// reaches the state), the form and the configure payload, Save at the revision read, a stale
// revision → "reload and retry" and the current settings reloaded, the token read once from its
// field and never kept, Remove token only after the confirmation, Test connection's message,
// `locked` back to the sign-in form, `passwordRequired` retried once, and a Publisher without
// the section.
import { describe, expect, it } from 'vitest';
import type { AdminRole } from '../../transport/desktop';
import { AdminController } from './adminController';
import { LOCKED_MESSAGE } from './adminModel';
import { DYNATRACE_REVISION, PASSWORD, fakeAdminShell, fakeInput } from './adminTestkit';
import { DynatraceController, showsDynatrace } from './dynatraceController';
import {
  STALE_TEXT,
  configurePayload,
  EMPTY_FORM,
  dynatraceStatus,
  formChanged,
  formFromStatus,
  parseProfiles,
  scopeText,
  tokenText,
} from './dynatraceModel';

async function section(opts: { role?: AdminRole } = {}) {
  const shell = fakeAdminShell({ role: opts.role });
  const admin = new AdminController(shell.bridge);
  await admin.start();
  const dt = new DynatraceController(shell.bridge, admin);
  const input = fakeInput();
  dt.token.ref(input);
  await dt.start();
  return { shell, admin, dt, input };
}

const dtCommands = (shell: ReturnType<typeof fakeAdminShell>) => shell.commands().filter((c) => String(c.command).startsWith('dynatrace.'));

describe('model', () => {
  it('reads the status field by field: unknown scope → all, storage only when configured, extra fields dropped', () => {
    const s = dynatraceStatus({ revision: 4, environmentUrl: 'https://x.apps.dynatrace.com', token: 'configured', tokenStorage: 'os_store', scope: { kind: 'alerting-profile', profiles: ['NOC', 3] }, workflowId: null, tokenValue: 'dt0s16.SECRET' });
    expect(s).toEqual({ revision: 4, environmentUrl: 'https://x.apps.dynatrace.com', token: 'configured', tokenStorage: 'os_store', scope: { kind: 'alerting-profile', profiles: ['NOC'] }, workflowId: '' });
    expect(JSON.stringify(s)).not.toContain('SECRET');
    expect(dynatraceStatus({ token: 'yes', tokenStorage: 'os_store', scope: { kind: 'weird' } })).toMatchObject({ revision: 0, token: 'not_configured', tokenStorage: null, scope: { kind: 'all' } });
    expect(dynatraceStatus(null).scope).toEqual({ kind: 'all' });
  });

  it('profiles one per line, trimmed and deduplicated; a blank matcher or workflow id is left out', () => {
    expect(parseProfiles(' NOC \n\nDB team\r\nNOC\n')).toEqual(['NOC', 'DB team']);
    expect(configurePayload({ ...EMPTY_FORM, environmentUrl: ' https://x.apps.dynatrace.com ', profiles: 'A\nB', matcher: '  ' })).toEqual({
      environmentUrl: 'https://x.apps.dynatrace.com',
      alertingProfiles: ['A', 'B'],
    });
    expect(configurePayload({ ...EMPTY_FORM, matcher: ' event.category == "ERROR" ', workflowId: ' wf-1 ' })).toEqual({
      environmentUrl: '',
      alertingProfiles: [],
      matcher: 'event.category == "ERROR"',
      workflowId: 'wf-1',
    });
  });

  it('the form from a status; changed only when the payload would differ', () => {
    const s = dynatraceStatus({ revision: 1, environmentUrl: 'https://x', token: 'not_configured', scope: { kind: 'custom-dql', matcher: 'm' }, workflowId: 'w' });
    const f = formFromStatus(s);
    expect(f).toEqual({ environmentUrl: 'https://x', profiles: '', matcher: 'm', workflowId: 'w', followWorkflow: false, workflowTask: '' });
    expect(formChanged(f, s)).toBe(false);
    expect(formChanged({ ...f, environmentUrl: ' https://x ' }, s)).toBe(false);
    expect(formChanged({ ...f, profiles: 'A' }, s)).toBe(true);
  });

  it('following a workflow: read from the status, sent only when chosen, with the task when named', () => {
    const s = dynatraceStatus({ revision: 2, environmentUrl: 'https://x', scope: { kind: 'workflow', task: 'find_problems' }, workflowId: 'wf-1' });
    expect(s.scope).toEqual({ kind: 'workflow', task: 'find_problems' });
    const f = formFromStatus(s);
    expect(f).toMatchObject({ followWorkflow: true, workflowTask: 'find_problems', workflowId: 'wf-1' });
    expect(configurePayload(f)).toEqual({ environmentUrl: 'https://x', alertingProfiles: [], workflowId: 'wf-1', followWorkflow: true, workflowTask: 'find_problems' });
    expect(configurePayload({ ...f, followWorkflow: false })).not.toHaveProperty('workflowTask');
    expect(formChanged({ ...f, followWorkflow: false }, s)).toBe(true);
    expect(scopeText(s.scope)).toMatch(/workflow's DQL query task find_problems/);
  });

  it('scope and token in words', () => {
    expect(scopeText({ kind: 'all' })).toBe('Every problem in the environment');
    expect(scopeText({ kind: 'alerting-profile', profiles: ['NOC', 'DB'] })).toBe('Problems of the alerting profiles NOC, DB');
    expect(scopeText({ kind: 'custom-dql', matcher: 'x' })).toMatch(/custom DQL matcher/);
    expect(tokenText({ token: 'not_configured', tokenStorage: null })).toBe('Not configured');
    expect(tokenText({ token: 'configured', tokenStorage: 'owner_only_file' })).toBe('Configured (kept in a file only the server account can read)');
    expect(tokenText({ token: 'configured', tokenStorage: 'memory_only' })).toMatch(/memory only/);
  });
});

describe('flow', () => {
  it('reads the settings on start into the state and the form (no token value)', async () => {
    const { dt, shell } = await section();
    shell.state.dynatrace.token = 'dt0s16.SECRET-TOKEN';
    await dt.reload();
    const s = dt.getState();
    expect(s.phase).toBe('ready');
    expect(s.status).toMatchObject({ revision: DYNATRACE_REVISION, environmentUrl: 'https://abc12345.apps.dynatrace.com', token: 'configured', tokenStorage: 'os_store' });
    expect(s.form).toEqual({ environmentUrl: 'https://abc12345.apps.dynatrace.com', profiles: 'NOC', matcher: '', workflowId: '', followWorkflow: false, workflowTask: '' });
    expect(JSON.stringify(s)).not.toContain('SECRET-TOKEN');
  });

  it('Save sends configure at the revision read and takes the new status', async () => {
    const { dt, shell } = await section();
    dt.edit({ profiles: 'NOC\nDB', workflowId: 'wf-9' });
    await dt.save();
    expect(dtCommands(shell).at(-1)).toEqual({
      command: 'dynatrace.configure',
      payload: { environmentUrl: 'https://abc12345.apps.dynatrace.com', alertingProfiles: ['NOC', 'DB'], workflowId: 'wf-9' },
      expectedRevision: DYNATRACE_REVISION,
    });
    expect(dt.getState().status?.revision).toBe(DYNATRACE_REVISION + 1);
    expect(dt.getState().message).toEqual({ text: 'Dynatrace settings saved.', error: false });
  });

  it('a stale revision says reload and retry, and reloads the current settings', async () => {
    const { dt, shell } = await section();
    shell.state.dynatrace.revision = 9; // another Administrator saved meanwhile
    shell.state.dynatrace.profiles = ['Theirs'];
    dt.edit({ profiles: 'Mine' });
    await dt.save();
    expect(dt.getState().message).toEqual({ text: STALE_TEXT, error: true });
    await Promise.resolve();
    await new Promise((r) => setTimeout(r, 0));
    expect(dt.getState().status?.revision).toBe(9);
    expect(dt.getState().form.profiles).toBe('Theirs');
  });

  it('the token is read once from its field (left blank), sent with the revision, never kept; blank is refused unsent', async () => {
    const { dt, shell, input } = await section();
    await dt.setToken();
    expect(dt.getState().message).toEqual({ text: 'Enter the platform token first.', error: true });
    expect(dtCommands(shell).some((c) => c.command === 'dynatrace.setToken')).toBe(false);
    input.value = 'dt0s16.NEW-SECRET';
    await dt.setToken();
    expect(input.value).toBe('');
    expect(dtCommands(shell).at(-1)).toEqual({ command: 'dynatrace.setToken', payload: { token: 'dt0s16.NEW-SECRET' }, expectedRevision: DYNATRACE_REVISION });
    expect(dt.getState().status?.token).toBe('configured');
    expect(dt.getState().message?.text).toBe('Platform token saved.');
    expect(JSON.stringify(dt.getState())).not.toContain('NEW-SECRET');
  });

  it('a refused token: the message never echoes it', async () => {
    const { dt, shell, input } = await section();
    shell.refuseNext('dynatrace.setToken', { code: 'rejected', message: 'invalid input: the token dt0s16.BAD-SECRET is malformed' });
    input.value = 'dt0s16.BAD-SECRET';
    await dt.setToken();
    expect(dt.getState().message?.error).toBe(true);
    expect(dt.getState().message?.text).not.toContain('BAD-SECRET');
  });

  it('Remove token only after the confirmation; cancel sends nothing', async () => {
    const { dt, shell } = await section();
    shell.state.dynatrace.token = 'x';
    await dt.reload();
    dt.askRemoveToken();
    expect(dt.getState().confirmingRemove).toBe(true);
    dt.cancelRemoveToken();
    expect(dtCommands(shell).some((c) => c.command === 'dynatrace.removeToken')).toBe(false);
    dt.askRemoveToken();
    await dt.confirmRemoveToken();
    expect(dtCommands(shell).at(-1)).toEqual({ command: 'dynatrace.removeToken', payload: {}, expectedRevision: DYNATRACE_REVISION });
    expect(dt.getState().status?.token).toBe('not_configured');
  });

  it('Test connection shows its message', async () => {
    const { dt } = await section();
    await dt.testConnection();
    expect(dt.getState().test).toEqual({ ok: true, message: 'Dynatrace answered: 12 problems in the last 2 hours.' });
  });

  it('locked: back to the sign-in form; passwordRequired: the password, then one retry', async () => {
    const { dt, admin, shell } = await section();
    shell.refuseNext('dynatrace.configure', { code: 'passwordRequired', message: 'Confirm your password to continue.' });
    dt.edit({ workflowId: 'wf-1' });
    await dt.save();
    expect(admin.getState().dialog).toEqual({ kind: 'freshPassword', error: null });
    admin.fields.fresh.ref(fakeInput(PASSWORD));
    await admin.submitFreshPassword();
    expect(dtCommands(shell).filter((c) => c.command === 'dynatrace.configure')).toHaveLength(2);
    expect(dt.getState().message?.text).toBe('Dynatrace settings saved.');

    shell.refuseNext('dynatrace.testConnection', { code: 'locked', message: 'locked' });
    shell.state.session = null;
    await dt.testConnection();
    expect(admin.getState().phase).toBe('signedOut');
    expect(admin.getState().message).toEqual({ text: LOCKED_MESSAGE, error: true });
  });

  it('a read failure is said; a Publisher session has no Dynatrace section', async () => {
    const shell = fakeAdminShell();
    const admin = new AdminController(shell.bridge);
    await admin.start();
    shell.refuseNext('dynatrace.status', { code: 'unavailable', message: 'the server is restarting; retry in a moment' });
    const dt = new DynatraceController(shell.bridge, admin);
    await dt.start();
    expect(dt.getState().phase).toBe('failed');
    expect(dt.getState().loadError).toMatch(/^The Dynatrace settings could not be read: Administration is unavailable right now/);
    expect(showsDynatrace(admin.getState())).toBe(true);
    const pub = fakeAdminShell({ role: 'publisher' });
    const pubAdmin = new AdminController(pub.bridge);
    await pubAdmin.start();
    expect(showsDynatrace(pubAdmin.getState())).toBe(false);
    expect(showsDynatrace({ phase: 'signedOut', session: null })).toBe(false);
  });
});
