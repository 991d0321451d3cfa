// Settings → Dynatrace dashboards: the form model (add, edit, errors at their fields, typing
// clears a field's message) and the markup (server-rendered): the list with Open / Edit / Remove
// named per dashboard, the labelled fields with their messages (aria-invalid + aria-describedby),
// h2/h3 only (the view's h1 stays Settings'), and "Clear Dynatrace session" only when the
// transport has it (desktop main window).
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { EMPTY_FORM, editField, editForm, submitForm, type DashboardFormState } from './dashboardForm';
import { DashboardsSettingsView, type DashboardsSettingsProps } from './DashboardsSettings';
import type { DynatraceDashboard } from './dashboards';

const ID1 = 'dt_00000000-0000-4000-8000-000000000001';
const ID2 = 'dt_00000000-0000-4000-8000-000000000002';
const A: DynatraceDashboard = { id: ID1, name: 'Prod overview', url: 'https://abc12345.live.dynatrace.com/#dashboard;id=1' };
const B: DynatraceDashboard = { id: ID2, name: 'Payments', url: 'https://abc12345.apps.dynatrace.com/ui/apps/dashboards/2' };
const noop = () => {};

function render(patch: Partial<DashboardsSettingsProps> = {}) {
  return renderToStaticMarkup(
    <DashboardsSettingsView dashboards={[A, B]} form={EMPTY_FORM} canClearSession={false} onOpen={noop} onEdit={noop} onRemove={noop}
      onField={noop} onSubmit={noop} onCancel={noop} onClearSession={noop} {...patch} />,
  );
}

describe('the form model', () => {
  it('adds, with the messages of every field at once', () => {
    const bad = submitForm([], { ...EMPTY_FORM, name: 'x'.repeat(101), url: 'http://abc.live.dynatrace.com/' });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.form.errors).toEqual({ name: 'The name can be at most 100 characters.', url: 'The Dynatrace URL must use HTTPS.' });
    const good = submitForm([A], { ...EMPTY_FORM, name: '  ', url: ' https://x.live.dynatrace.com/d ' }, () => ID2);
    expect(good).toEqual({
      ok: true,
      dashboards: [A, { id: ID2, name: 'Dynatrace Dashboard', url: 'https://x.live.dynatrace.com/d' }],
      dashboard: { id: ID2, name: 'Dynatrace Dashboard', url: 'https://x.live.dynatrace.com/d' },
      form: EMPTY_FORM,
    });
  });

  it.each([
    ['not a url', 'Enter a valid URL.'],
    ['http://abc.live.dynatrace.com/', 'The Dynatrace URL must use HTTPS.'],
    ['https://evildynatrace.com/', 'Enter a Dynatrace URL under dynatrace.com.'],
    ['https://dynatrace.com.evil.net/', 'Enter a Dynatrace URL under dynatrace.com.'],
  ])('shows the URL message for %s', (url, message) => {
    const r = submitForm([], { ...EMPTY_FORM, url });
    expect(!r.ok && r.form.errors).toEqual({ url: message });
  });

  it('edits in place; a dashboard gone meanwhile is a form-wide message', () => {
    const form = editForm(B);
    expect(form).toEqual({ editingId: ID2, name: 'Payments', url: B.url, errors: {} });
    const r = submitForm([A, B], { ...form, name: 'Payments EU' });
    expect(r.ok && r.dashboards).toEqual([A, { ...B, name: 'Payments EU' }]);
    const gone = submitForm([A], form);
    expect(!gone.ok && gone.form.errors).toEqual({ form: 'That dashboard is no longer in the list.' });
  });

  it('typing in a field clears its message and the form-wide one only', () => {
    const f: DashboardFormState = { ...EMPTY_FORM, errors: { name: 'n', url: 'u', form: 'f' } };
    expect(editField(f, 'url', 'https://')).toEqual({ ...EMPTY_FORM, url: 'https://', errors: { name: 'n' } });
  });
});

describe('the Settings section markup', () => {
  it('an h2 and an h3, no h1; the list with Open / Edit / Remove named per dashboard', () => {
    const html = render();
    expect(html).not.toContain('<h1');
    expect(html).toContain('<h2 id="dt-dashboards-title">Dynatrace dashboards</h2>');
    expect(html).toContain('aria-labelledby="dt-dashboards-title"');
    expect(html).toContain('<h3 id="dt-dashboard-form-title">Add a dashboard</h3>');
    expect(html).toMatch(/<ul[^>]*aria-label="Saved Dynatrace dashboards"/);
    for (const d of [A, B]) {
      for (const verb of ['Open', 'Edit', 'Remove']) {
        expect(html).toMatch(new RegExp(`<button type="button"[^>]*aria-label="${verb} ${d.name}"[^>]*>${verb}</button>`));
      }
    }
    expect(html).toContain('Add dashboard</button>');
    expect(html).not.toContain('dt-dashboard-cancel');
  });

  it('says so when the list is empty', () => {
    const html = render({ dashboards: [] });
    expect(html).toContain('data-testid="dt-dashboards-empty"');
    expect(html).not.toContain('dt-dashboards-list');
  });

  it('labelled fields; a message sits at its field, which is marked invalid and described by it', () => {
    const clean = render();
    expect(clean).toMatch(/<label class="field"><span class="field-label">Name<\/span><input id="dt-dashboard-name"[^>]*aria-describedby="dt-dashboard-name-hint"/);
    expect(clean).toMatch(/<label class="field"><span class="field-label">URL<\/span><input id="dt-dashboard-url"[^>]*type="url"/);
    expect(clean).not.toContain('aria-invalid');
    const html = render({ form: { ...EMPTY_FORM, url: 'https://evildynatrace.com/', errors: { url: 'Enter a Dynatrace URL under dynatrace.com.' } } });
    const url = html.match(/<input id="dt-dashboard-url"[^>]*>/)![0];
    expect(url).toContain('aria-invalid="true"');
    expect(url).toContain('aria-describedby="dt-dashboard-url-error"');
    expect(url).toContain('value="https://evildynatrace.com/"');
    expect(html).toContain('<p id="dt-dashboard-url-error" class="error-text small" data-testid="dt-dashboard-url-error">Enter a Dynatrace URL under dynatrace.com.</p>');
    expect(html.match(/<input id="dt-dashboard-name"[^>]*>/)![0]).not.toContain('aria-invalid');
    const named = render({ form: { ...EMPTY_FORM, errors: { name: 'The name can be at most 100 characters.' } } });
    expect(named).toContain('aria-describedby="dt-dashboard-name-error"');
    expect(named).toContain('>The name can be at most 100 characters.</p>');
  });

  it('editing: the heading names the dashboard; Save changes and Cancel', () => {
    const html = render({ form: editForm(B) });
    expect(html).toContain('<h3 id="dt-dashboard-form-title">Edit “Payments”</h3>');
    expect(html).toContain('Save changes</button>');
    expect(html).toContain('data-testid="dt-dashboard-cancel"');
  });

  it('a form-wide error is an alert', () => {
    const html = render({ form: { ...EMPTY_FORM, errors: { form: 'Could not save.' } } });
    expect(html).toContain('<p class="error-text" role="alert" data-testid="dt-dashboard-form-error">Could not save.</p>');
  });

  it('at 50 dashboards adding is disabled, with the reason', () => {
    const many = Array.from({ length: 50 }, (_, i) => ({ ...A, id: `dt_00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, name: `d${i}` }));
    const html = render({ dashboards: many });
    expect(html).toMatch(/<button type="submit"[^>]*disabled=""[^>]*data-testid="dt-dashboard-save"/);
    expect(html).toContain('data-testid="dt-dashboards-full"');
    expect(render({ dashboards: many, form: editForm(many[3]) })).not.toContain('data-testid="dt-dashboards-full"');
  });

  it('"Clear Dynatrace session" only where the transport has it (desktop main window)', () => {
    expect(render()).not.toContain('Clear Dynatrace session');
    expect(render({ canClearSession: true })).toMatch(/<button type="button"[^>]*data-testid="dt-clear-session"[^>]*>Clear Dynatrace session<\/button>/);
  });
});

describe('popout states in the list', () => {
  it('a dashboard shows its window state in words; one never opened shows none', () => {
    const html = render({ states: { [ID1]: 'authenticating' } });
    expect(html).toMatch(new RegExp(`data-testid="dt-dashboard-state-${ID1}">Signed out<`));
    expect(html).not.toContain(`dt-dashboard-state-${ID2}`);
  });
});
