// Settings → Dynatrace dashboards: this device's list (Open / Edit / Remove), the add/edit form
// (name, URL; each message at its field, the field marked invalid and described by it) and, in
// the desktop main window only, "Clear Dynatrace session" (confirm, then a toast). The list lives
// in this device's storage (features/dynatrace/dashboards); the sidebar launcher follows it.
// DashboardsSettingsView is the markup (tested server-rendered); the section wires it up.
import { useEffect, useRef, useState, type FormEvent, type RefObject } from 'react';
import { useToast } from '../../components/Toasts';
import { useTransport } from '../../transport/context';
import { MAX_DASHBOARDS, MAX_NAME_LENGTH, MAX_URL_LENGTH, loadDashboards, removeDashboard, saveDashboards, type DynatraceDashboard } from './dashboards';
import { EMPTY_FORM, editField, editForm, submitForm, type DashboardFormState } from './dashboardForm';
import { popoutStateLabel, usePopoutStates } from './popoutStates';
import { useDashboards } from './useDashboards';

export const SESSION_CLEARED = 'Dynatrace session cleared';
const STORAGE_REFUSED = 'Could not save: this device’s storage is unavailable or full.';

export interface DashboardsSettingsProps {
  dashboards: readonly DynatraceDashboard[];
  form: DashboardFormState;
  /** Show "Clear Dynatrace session" (desktop main window). */
  canClearSession: boolean;
  /** The desktop popouts' states by dashboard id (empty elsewhere). */
  states?: Readonly<Record<string, string>>;
  busy?: boolean;
  onOpen: (d: DynatraceDashboard) => void;
  onEdit: (d: DynatraceDashboard) => void;
  onRemove: (d: DynatraceDashboard) => void;
  onField: (field: 'name' | 'url', value: string) => void;
  onSubmit: () => void;
  onCancel: () => void;
  onClearSession: () => void;
  nameRef?: RefObject<HTMLInputElement | null>;
  urlRef?: RefObject<HTMLInputElement | null>;
}

export function DashboardsSettingsView(p: DashboardsSettingsProps) {
  const { form, dashboards } = p;
  const editing = form.editingId !== null ? dashboards.find((d) => d.id === form.editingId) ?? null : null;
  const full = form.editingId === null && dashboards.length >= MAX_DASHBOARDS;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    p.onSubmit();
  };
  return (
    <div className="panel card" aria-labelledby="dt-dashboards-title" role="region" data-testid="settings-dynatrace-dashboards">
      <h2 id="dt-dashboards-title">Dynatrace dashboards</h2>
      <p className="muted small">
        Kept on this device only. {p.canClearSession ? 'Each opens in its own Relay window.' : 'Each opens in a new browser tab.'}
      </p>
      {dashboards.length === 0 ? (
        <p className="muted" data-testid="dt-dashboards-empty">No dashboards yet. Add one below; it then shows in the sidebar too.</p>
      ) : (
        <ul className="dt-dashboard-list" aria-label="Saved Dynatrace dashboards" data-testid="dt-dashboards-list">
          {dashboards.map((d) => (
            <li key={d.id} className="dt-dashboard-row" data-testid={`dt-dashboard-${d.id}`}>
              <div className="dt-dashboard-text">
                <span className="dt-dashboard-name">{d.name}</span>
                {popoutStateLabel(p.states?.[d.id]) && (
                  <span className={`chip small dt-state dt-state-${p.states?.[d.id]}`} data-testid={`dt-dashboard-state-${d.id}`}>
                    {popoutStateLabel(p.states?.[d.id])}
                  </span>
                )}
                <span className="muted small dt-dashboard-url" title={d.url}>{d.url}</span>
              </div>
              <div className="admin-actions">
                <button type="button" className="button button-ghost small" aria-label={`Open ${d.name}`} data-testid={`dt-dashboard-open-${d.id}`} onClick={() => p.onOpen(d)}>
                  Open
                </button>
                <button type="button" className="button button-ghost small" aria-label={`Edit ${d.name}`} data-testid={`dt-dashboard-edit-${d.id}`}
                  disabled={p.busy} onClick={() => p.onEdit(d)}>
                  Edit
                </button>
                <button type="button" className="button button-ghost small" aria-label={`Remove ${d.name}`} data-testid={`dt-dashboard-remove-${d.id}`}
                  disabled={p.busy} onClick={() => p.onRemove(d)}>
                  Remove
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      <form className="form" onSubmit={submit} noValidate aria-labelledby="dt-dashboard-form-title" data-testid="dt-dashboard-form">
        <h3 id="dt-dashboard-form-title">{editing ? `Edit “${editing.name}”` : 'Add a dashboard'}</h3>
        <label className="field">
          <span className="field-label">Name</span>
          <input id="dt-dashboard-name" className="input" autoComplete="off" maxLength={MAX_NAME_LENGTH} placeholder="Dynatrace Dashboard"
          value={form.name} ref={p.nameRef} data-testid="dt-dashboard-name"
          aria-invalid={form.errors.name ? true : undefined} aria-describedby={form.errors.name ? 'dt-dashboard-name-error' : 'dt-dashboard-name-hint'}
          onChange={(e) => p.onField('name', e.target.value)} />
        </label>
        {form.errors.name ? (
          <p id="dt-dashboard-name-error" className="error-text small" data-testid="dt-dashboard-name-error">{form.errors.name}</p>
        ) : (
          <p id="dt-dashboard-name-hint" className="muted small">Optional; at most {MAX_NAME_LENGTH} characters.</p>
        )}
        <label className="field">
          <span className="field-label">URL</span>
          <input id="dt-dashboard-url" className="input" type="url" inputMode="url" autoComplete="off" spellCheck={false} maxLength={MAX_URL_LENGTH}
          placeholder="https://abc12345.apps.dynatrace.com/…" required aria-required="true"
          value={form.url} ref={p.urlRef} data-testid="dt-dashboard-url"
          aria-invalid={form.errors.url ? true : undefined} aria-describedby={form.errors.url ? 'dt-dashboard-url-error' : 'dt-dashboard-url-hint'}
          onChange={(e) => p.onField('url', e.target.value)} />
        </label>
        {form.errors.url ? (
          <p id="dt-dashboard-url-error" className="error-text small" data-testid="dt-dashboard-url-error">{form.errors.url}</p>
        ) : (
          <p id="dt-dashboard-url-hint" className="muted small">An https address under dynatrace.com.</p>
        )}
        {form.errors.form && <p className="error-text" role="alert" data-testid="dt-dashboard-form-error">{form.errors.form}</p>}
        {full && <p className="muted small" data-testid="dt-dashboards-full">At most {MAX_DASHBOARDS} dashboards can be saved; remove one to add another.</p>}
        <div className="admin-actions">
          <button type="submit" className="button button-primary small" disabled={p.busy || full} data-testid="dt-dashboard-save">
            {editing ? 'Save changes' : 'Add dashboard'}
          </button>
          {form.editingId !== null && (
            <button type="button" className="button button-ghost small" data-testid="dt-dashboard-cancel" onClick={p.onCancel}>
              Cancel
            </button>
          )}
        </div>
      </form>
      {p.canClearSession && (
        <div className="form">
          <h3>Dynatrace sign-in</h3>
          <p className="muted small">Clearing the session signs every Dynatrace window out; the next dashboard asks you to sign in again.</p>
          <div className="admin-actions">
            <button type="button" className="button button-ghost small" disabled={p.busy} data-testid="dt-clear-session" onClick={p.onClearSession}>
              Clear Dynatrace session
            </button>
          </div>
        </div>
      )}
    </div>
  );
}

const message = (e: unknown) => (e instanceof Error && e.message ? e.message : String(e));

export function DashboardsSettings({ confirm = (text: string) => window.confirm(text) }: { confirm?: (text: string) => boolean }) {
  const transport = useTransport();
  const toast = useToast();
  const dashboards = useDashboards();
  const [form, setForm] = useState<DashboardFormState>(EMPTY_FORM);
  const [busy, setBusy] = useState(false);
  const nameRef = useRef<HTMLInputElement>(null);
  const urlRef = useRef<HTMLInputElement>(null);
  const focusAfter = useRef<(() => void) | null>(null);
  useEffect(() => {
    const f = focusAfter.current;
    focusAfter.current = null;
    f?.();
  });
  const focusRowButton = (id: string | null, fallback: () => void) => () => {
    const b = id ? document.querySelector<HTMLButtonElement>(`[data-testid="dt-dashboard-edit-${id}"]`) : null;
    if (b) b.focus();
    else fallback();
  };
  // The dashboard being edited was removed (here or in another window): back to adding.
  useEffect(() => {
    if (form.editingId !== null && !dashboards.some((d) => d.id === form.editingId)) setForm(EMPTY_FORM);
  }, [dashboards, form.editingId]);

  const clear = transport.clearDynatraceSession;
  const states = usePopoutStates();
  return (
    <DashboardsSettingsView
      dashboards={dashboards}
      form={form}
      canClearSession={typeof clear === 'function'}
      states={states}
      busy={busy}
      nameRef={nameRef}
      urlRef={urlRef}
      onOpen={(d) => {
        transport.openDynatraceDashboard(d.url, d.id).catch((e: unknown) => toast('error', `Could not open ${d.name}: ${message(e)}`));
      }}
      onEdit={(d) => {
        setForm(editForm(d));
        focusAfter.current = () => nameRef.current?.focus();
      }}
      onRemove={(d) => {
        if (!confirm(`Remove the Dynatrace dashboard “${d.name}” from this device?`)) return;
        const r = removeDashboard(loadDashboards(), d.id);
        if (!r.ok) return; // already gone (another window): the list follows the storage event
        if (!saveDashboards(r.dashboards)) {
          toast('error', STORAGE_REFUSED);
          return;
        }
        toast('success', `Removed ${d.name}`);
        transport.closeDynatraceDashboard?.(d.id).catch(() => {
          /* not open, or the shell is restarting: nothing to close */
        });
        if (form.editingId === d.id) setForm(EMPTY_FORM);
        focusAfter.current = () => nameRef.current?.focus();
      }}
      onField={(field, value) => setForm((f) => editField(f, field, value))}
      onSubmit={() => {
        const r = submitForm(loadDashboards(), form);
        if (!r.ok) {
          setForm(r.form);
          focusAfter.current = () => (r.form.errors.name ? nameRef : urlRef).current?.focus();
          return;
        }
        if (!saveDashboards(r.dashboards)) {
          setForm({ ...form, errors: { form: STORAGE_REFUSED } });
          return;
        }
        toast('success', form.editingId === null ? `Added ${r.dashboard.name}` : `Saved ${r.dashboard.name}`);
        focusAfter.current = focusRowButton(form.editingId, () => nameRef.current?.focus());
        setForm(r.form);
      }}
      onCancel={() => {
        focusAfter.current = focusRowButton(form.editingId, () => nameRef.current?.focus());
        setForm(EMPTY_FORM);
      }}
      onClearSession={() => {
        if (!clear) return;
        if (!confirm('Clear the Dynatrace session? Every Dynatrace window signs out, and the next dashboard you open asks you to sign in again.')) return;
        setBusy(true);
        clear()
          .then(() => toast('success', SESSION_CLEARED))
          .catch((e: unknown) => toast('error', `Could not clear the Dynatrace session: ${message(e)}`))
          .finally(() => setBusy(false));
      }}
    />
  );
}
