// The Settings add/edit form for Dynatrace dashboards, as pure state: what the fields hold, which
// dashboard is being edited (null: adding) and the messages shown at each field.
import { addDashboard, updateDashboard, type DashboardError, type DynatraceDashboard } from './dashboards';

export interface DashboardFormState {
  /** The dashboard being edited, or null when the form adds one. */
  editingId: string | null;
  name: string;
  url: string;
  errors: { name?: string; url?: string; form?: string };
}

export const EMPTY_FORM: DashboardFormState = { editingId: null, name: '', url: '', errors: {} };

export function editForm(d: DynatraceDashboard): DashboardFormState {
  return { editingId: d.id, name: d.name, url: d.url, errors: {} };
}

function errorsOf(list: DashboardError[]): DashboardFormState['errors'] {
  const out: DashboardFormState['errors'] = {};
  for (const e of list) out[e.field ?? 'form'] ??= e.message;
  return out;
}

export type SubmitResult =
  | { ok: true; dashboards: DynatraceDashboard[]; dashboard: DynatraceDashboard; form: DashboardFormState }
  | { ok: false; form: DashboardFormState };

/** Applies the form to `list` (the stored list, read just before): a new list and a cleared form, or the form with its errors. */
export function submitForm(list: readonly DynatraceDashboard[], form: DashboardFormState, newId?: () => string): SubmitResult {
  const input = { name: form.name, url: form.url };
  const r = form.editingId === null ? addDashboard(list, input, newId) : updateDashboard(list, form.editingId, input);
  if (!r.ok) return { ok: false, form: { ...form, errors: errorsOf(r.errors) } };
  return { ok: true, dashboards: r.dashboards, dashboard: r.dashboard, form: EMPTY_FORM };
}

/** Typing in a field clears that field's message (and the form-wide one). */
export function editField(form: DashboardFormState, field: 'name' | 'url', value: string): DashboardFormState {
  const errors = { ...form.errors };
  delete errors[field];
  delete errors.form;
  return { ...form, [field]: value, errors };
}
