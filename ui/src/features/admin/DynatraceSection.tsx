// Administration screen, the Dynatrace section (Owner and Administrator sessions): the settings
// form (environment URL, alerting profiles one per line, optional custom DQL matcher, workflow id,
// Save), the platform token (configured or not and where it is kept — never the token itself; a
// password field and Save token; Remove token after the app's Confirm dialog), Test connection
// and its message, the section's notices (role="status") and errors (role="alert"). Every button
// is disabled while a request runs.
import type { FormEvent } from 'react';
import { Confirm } from '../../components/Modal';
import type { DynatraceController, DynatraceState } from './dynatraceController';
import { formChanged, scopeText, tokenText } from './dynatraceModel';

export type DynatracePanelController = Pick<
  DynatraceController,
  'edit' | 'save' | 'setToken' | 'askRemoveToken' | 'cancelRemoveToken' | 'confirmRemoveToken' | 'testConnection' | 'reload' | 'token'
>;

export function DynatraceSection({ state, busy, ctl }: { state: DynatraceState; busy: boolean; ctl: DynatracePanelController }) {
  const { phase, status, form, message, test, loadError } = state;
  const onSave = (e: FormEvent) => {
    e.preventDefault();
    void ctl.save();
  };
  const onToken = (e: FormEvent) => {
    e.preventDefault();
    void ctl.setToken();
  };
  return (
    <section data-testid="admin-dynatrace" aria-busy={busy || undefined} aria-labelledby="admin-dynatrace-title">
      <h3 id="admin-dynatrace-title">Dynatrace</h3>
      <p className="muted small">The Relay server reads Dynatrace problems with these settings and shows them on the Problems tab.</p>
      {phase === 'loading' && <p className="muted small" role="status">Reading the Dynatrace settings…</p>}
      {loadError && (
        <p className="error-text" role="alert" data-testid="admin-dynatrace-load-error">
          {loadError}{' '}
          <button type="button" className="button button-ghost small" disabled={busy} onClick={() => void ctl.reload()}>
            Reload
          </button>
        </p>
      )}
      {status && (
        <>
          <dl className="kv" data-testid="admin-dynatrace-status">
            <dt>Scope</dt>
            <dd>{scopeText(status.scope)}</dd>
            <dt>Platform token</dt>
            <dd data-testid="admin-dynatrace-token-state">{tokenText(status)}</dd>
          </dl>
          <form className="form" onSubmit={onSave} data-testid="admin-dynatrace-form">
            <label className="field">
              <span className="field-label">Environment URL</span>
              <input className="input" type="url" inputMode="url" autoComplete="off" spellCheck={false} placeholder="https://abc12345.apps.dynatrace.com"
                value={form.environmentUrl} data-testid="admin-dynatrace-url" onChange={(e) => ctl.edit({ environmentUrl: e.target.value })} />
            </label>
            <p className="muted small">Changing the environment removes the stored token.</p>
            <label className="field">
              <span className="field-label">Alerting profiles (one per line; none for every problem)</span>
              <textarea className="input textarea" spellCheck={false} value={form.profiles} data-testid="admin-dynatrace-profiles"
                onChange={(e) => ctl.edit({ profiles: e.target.value })} />
            </label>
            <label className="field">
              <span className="field-label">Custom DQL matcher (optional; replaces the alerting profiles)</span>
              <textarea className="input textarea" spellCheck={false} value={form.matcher} data-testid="admin-dynatrace-matcher"
                onChange={(e) => ctl.edit({ matcher: e.target.value })} />
            </label>
            <label className="field">
              <span className="field-label">Workflow id (optional, for notification e-mail subjects)</span>
              <input className="input" autoComplete="off" spellCheck={false} value={form.workflowId} data-testid="admin-dynatrace-workflow"
                onChange={(e) => ctl.edit({ workflowId: e.target.value })} />
            </label>
            <label className="checkbox-row">
              <input type="checkbox" checked={form.followWorkflow} data-testid="admin-dynatrace-follow"
                onChange={(e) => ctl.edit({ followWorkflow: e.target.checked })} />
              Follow the workflow's DQL query task (instead of profiles or a matcher)
            </label>
            {form.followWorkflow && (
              <label className="field">
                <span className="field-label">DQL query task (blank: the workflow's only one)</span>
                <input className="input" autoComplete="off" spellCheck={false} value={form.workflowTask} data-testid="admin-dynatrace-task"
                  onChange={(e) => ctl.edit({ workflowTask: e.target.value })} />
              </label>
            )}
            <div className="admin-actions">
              <button type="submit" className="button button-primary small" disabled={busy || !formChanged(form, status)} data-testid="admin-dynatrace-save">
                Save settings
              </button>
            </div>
          </form>
          <form className="form" onSubmit={onToken} data-testid="admin-dynatrace-token-form">
            <label className="field">
              <span className="field-label">{status.token === 'configured' ? 'Replace the platform token' : 'Platform token'}</span>
              <input className="input" type="password" autoComplete="off" spellCheck={false} ref={ctl.token.ref} data-testid="admin-dynatrace-token" />
            </label>
            <p className="muted small">It needs the storage:events:read and storage:buckets:read scopes. It is never shown again.</p>
            <div className="admin-actions">
              <button type="submit" className="button button-primary small" disabled={busy || !status.environmentUrl} data-testid="admin-dynatrace-token-save">
                Save token
              </button>
              <button type="button" className="button button-ghost small" disabled={busy || status.token !== 'configured'} data-testid="admin-dynatrace-token-remove"
                onClick={ctl.askRemoveToken}>
                Remove token
              </button>
              <button type="button" className="button button-ghost small" disabled={busy || status.token !== 'configured'} data-testid="admin-dynatrace-test"
                onClick={() => void ctl.testConnection()}>
                Test connection
              </button>
            </div>
          </form>
          {!status.environmentUrl && <p className="muted small">Save the environment URL before the token.</p>}
        </>
      )}
      {test && (
        <p className={test.ok ? 'muted' : 'error-text'} role={test.ok ? 'status' : 'alert'} data-testid="admin-dynatrace-test-result">
          {test.ok ? 'Connection works: ' : 'Connection failed: '}
          {test.message}
        </p>
      )}
      {message && (
        <p className={message.error ? 'error-text' : 'muted'} role={message.error ? 'alert' : 'status'} data-testid="admin-dynatrace-message">
          {message.text}
        </p>
      )}
      {state.confirmingRemove && (
        <Confirm title="Remove the Dynatrace platform token?" message="Dynatrace problems stop syncing until a new token is saved."
          confirmLabel="Remove token" onConfirm={() => void ctl.confirmRemoveToken()} onCancel={ctl.cancelRemoveToken} />
      )}
    </section>
  );
}
