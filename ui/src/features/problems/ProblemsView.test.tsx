// Markup tests for the Problems board and the notes panel (server-rendered, no DOM): one h1, the
// labelled filter (aria-pressed, counts) and search, open-first order, severity and status in
// words, age and duration, root cause, entities with "and N more", the labelled Addressed
// checkbox with who and when, the notes disclosure (aria-expanded/controls), the sync banner
// (error as an alert, truncated warning, ok line) and the "not configured" empty state; notes
// newest first with their author, the labelled note form; the keyboard hint and the focusable
// problem cards the Alt+↓/↑ shortcuts land on.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ProblemNote, ProblemState } from './problems';
import { MIN, NOW, problem, stamp, sync } from './problemsTestkit';
import { NotesPanel, ProblemsBoard, ROWS_PER_STEP, type NotesState, type ProblemsBoardProps } from './ProblemsView';

const open1 = problem({ id: 'r1', problemId: 'p1', displayId: 'P-1', title: 'Checkout failures', startTime: stamp(NOW - 65 * MIN) });
const open2 = problem({
  id: 'r2',
  problemId: 'p2',
  displayId: 'P-2',
  severity: 'AVAILABILITY',
  title: 'Website <b>down</b>',
  startTime: stamp(NOW - 5 * MIN),
  rootCauseName: '',
  affectedEntities: Array.from({ length: 8 }, (_, i) => ({ id: `H-${i}`, type: 'HOST', name: `host-${i}` })),
});
const closed = problem({ id: 'r3', problemId: 'p3', displayId: 'P-3', status: 'CLOSED', severity: 'PERFORMANCE', startTime: stamp(NOW - 300 * MIN), endTime: stamp(NOW - 240 * MIN) });

const addressed: ProblemState = { id: 's1', created: '', updated: '', problemId: 'p1', addressed: true, addressedAt: stamp(NOW - 3 * MIN), addressedBy: 'Ann' };

const props = (extra: Partial<ProblemsBoardProps> = {}): ProblemsBoardProps => ({
  status: 'ready',
  error: null,
  problems: [closed, open1, open2],
  states: new Map([['p1', addressed]]),
  sync: sync(),
  syncLoaded: true,
  now: NOW,
  filter: 'all',
  query: '',
  onFilter: () => {},
  onQuery: () => {},
  pending: new Map(),
  notesOpen: new Set(),
  onAddressed: () => {},
  onNotes: () => {},
  renderNotes: (p) => <p data-testid="notes-stub">notes of {p.problemId}</p>,
  ...extra,
});
const render = (extra: Partial<ProblemsBoardProps> = {}) => renderToStaticMarkup(<ProblemsBoard {...props(extra)} />);

describe('ProblemsBoard', () => {
  it('one h1, the labelled filter with counts and aria-pressed, the labelled search', () => {
    const html = render();
    expect(html.match(/<h1/g)).toHaveLength(1);
    expect(html).toContain('<h1 class="view-title">Problems</h1>');
    expect(html).toMatch(/role="group" aria-label="Show problems"/);
    expect(html).toMatch(/aria-pressed="false" data-testid="problems-filter-open">Open \(2\)</);
    expect(html).toMatch(/aria-pressed="false" data-testid="problems-filter-closed">Closed \(1\)</);
    expect(html).toMatch(/aria-pressed="true" data-testid="problems-filter-all">All \(3\)</);
    expect(html).toMatch(/<label class="field problems-search"><span class="field-label">Search problems<\/span><input[^>]*type="search"/);
  });

  it('open first, newest first; severity and status in words; age or duration; root cause; entities capped', () => {
    const html = render();
    const order = [...html.matchAll(/data-problem-id="([^"]+)"/g)].map((m) => m[1]);
    expect(order).toEqual(['p2', 'p1', 'p3']);
    expect(html).toMatch(/data-testid="problem-severity"><span class="visually-hidden">Severity: <\/span>Availability</);
    expect(html).toMatch(/data-testid="problem-status">Open</);
    expect(html).toMatch(/data-testid="problem-status">Closed</);
    expect(html).toMatch(/data-testid="problem-time">Open for 1 h 5 min</);
    expect(html).toMatch(/data-testid="problem-time">Lasted 1 h, closed 4 h ago</);
    expect(html).toContain('Website &lt;b&gt;down&lt;/b&gt;');
    expect(html).toMatch(/data-testid="problem-root-cause"><span class="muted">Not identified</);
    expect(html).toMatch(/data-testid="problem-root-cause">checkout-api</);
    expect(html).toContain('host-5');
    expect(html).not.toContain('host-6');
    expect(html).toContain(' and 2 more');
  });

  it('the Addressed checkbox is labelled per problem and says who and when', () => {
    const html = render({ pending: new Map([['p2', true]]) });
    expect(html).toMatch(/<label class="checkbox-row problem-addressed"><input type="checkbox" data-testid="problem-addressed" checked=""\/>Addressed<span class="visually-hidden"> \(P-1\)<\/span>/);
    expect(html).toMatch(/data-testid="problem-addressed-by">by Ann · 3 min ago</);
    expect(html).toMatch(/<input type="checkbox" disabled="" aria-busy="true"[^>]*data-testid="problem-addressed" checked=""\/>Addressed<span class="visually-hidden"> \(P-2\)/);
  });

  it('notes disclosure: aria-expanded and aria-controls; the notes render only when open', () => {
    const closedHtml = render();
    expect(closedHtml).toMatch(/aria-expanded="false" aria-controls="problem-notes-r1"[^>]*>Notes<span class="visually-hidden"> for P-1</);
    expect(closedHtml).not.toContain('notes-stub');
    const openHtml = render({ notesOpen: new Set(['p1']) });
    expect(openHtml).toMatch(/aria-expanded="true" aria-controls="problem-notes-r1"[^>]*>Hide notes/);
    expect(openHtml).toMatch(/<div id="problem-notes-r1"><p data-testid="notes-stub">notes of p1<\/p><\/div>/);
  });

  it('keys: the hint in the toolbar; each problem card is focusable (not a tab stop) for Alt+↓/↑', () => {
    const html = render();
    expect(html).toMatch(/<p class="muted small problems-keys" id="problems-keys" data-testid="problems-keys">Keys: Alt\+↓\/↑ next unaddressed problem, Alt\+N add a note<\/p>/);
    expect(html.match(/<article class="problem-card" tabindex="-1" aria-labelledby="problem-title-r\d"/g)).toHaveLength(3);
    expect(render({ problems: [], sync: sync({ state: 'disabled' }) })).not.toContain('problems-keys');
  });

  it('a long list renders the first rows and offers the rest', () => {
    const many = Array.from({ length: ROWS_PER_STEP + 50 }, (_, i) => problem({ problemId: `m${i}`, status: 'OPEN' }));
    const html = render({ problems: many, filter: 'all' });
    expect(html.match(/data-problem-id=/g)).toHaveLength(ROWS_PER_STEP);
    expect(html).toContain(`aria-label="${ROWS_PER_STEP + 50} problems"`);
    expect(html).toMatch(new RegExp(`data-testid="problems-shown">Showing ${ROWS_PER_STEP} of ${ROWS_PER_STEP + 50}<`));
    expect(html).toMatch(/data-testid="problems-more">Show 50 more</);
    expect(render()).not.toContain('problems-more');
  });

  it('filter and search narrow the list; empty results say so', () => {
    expect(render({ filter: 'open' })).not.toContain('data-problem-id="p3"');
    expect(render({ filter: 'closed' }).match(/data-problem-id=/g)).toHaveLength(1);
    expect(render({ query: 'website' }).match(/data-problem-id=/g)).toHaveLength(1);
    expect(render({ query: 'zzz' })).toMatch(/data-testid="problems-empty">No problems match the search.</);
    expect(render({ problems: [closed], filter: 'open' })).toMatch(/data-testid="problems-empty">No open problems.</);
  });

  it('sync banner: error as an alert with the plain-words details; truncated as a warning; ok as a quiet line', () => {
    const err = render({ sync: sync({ state: 'error', error: 'Dynatrace rejected the token.', staleSince: stamp(NOW - 12 * MIN), nextRetryAt: stamp(NOW + 4 * MIN) }) });
    expect(err).toMatch(/role="alert" data-testid="problems-sync" data-tone="error"><p class="problems-banner-title">Dynatrace problems are not up to date<\/p>/);
    expect(err).toContain('Last error: Dynatrace rejected the token.');
    expect(err).toContain('The list is stale since 12 min ago.');
    expect(err).toContain('Next retry in 4 min.');
    expect(render({ sync: sync({ resultTruncated: true }) })).toMatch(/role="status" data-testid="problems-sync" data-tone="warning">[^]*10,000-result limit/);
    expect(render()).toMatch(/role="status" data-testid="problems-sync" data-tone="ok">Up to date — checked 2 min ago</);
    expect(render({ syncLoaded: false })).not.toContain('problems-sync');
  });

  it('not configured: the empty state instead of the list (problems kept from before still show, under the banner)', () => {
    const html = render({ problems: [], sync: sync({ state: 'disabled' }) });
    expect(html).toMatch(/data-testid="problems-not-configured"><h2>Dynatrace is not configured<\/h2>/);
    expect(html).not.toContain('problems-filter');
    const kept = render({ sync: sync({ state: 'disabled' }) });
    expect(kept).toMatch(/data-testid="problems-sync" data-tone="info">[^]*Dynatrace is not configured/);
    expect(kept.match(/data-problem-id=/g)).toHaveLength(3);
  });

  it('loading and load errors', () => {
    expect(render({ status: 'loading', problems: [] })).toMatch(/role="status" data-testid="problems-loading">Loading problems…/);
    expect(render({ status: 'error', error: 'Cannot reach the Relay server.', problems: [] })).toMatch(/role="alert" data-testid="problems-error">Problems could not be loaded: Cannot reach the Relay server./);
  });
});

describe('NotesPanel', () => {
  const note = (id: string, created: string, author: string, text: string): ProblemNote => ({ id, created, updated: created, problemId: 'p1', note: text, author });
  const renderNotes = (state: NotesState, name = 'Ann') =>
    renderToStaticMarkup(<NotesPanel problem={open1} state={state} name={name} onName={() => {}} onAdd={async () => true} now={NOW} />);

  it('a labelled region and form: the note, your name, Add note', () => {
    const html = renderNotes({ status: 'ready', notes: [], error: null });
    expect(html).toMatch(/<section class="problem-notes" aria-label="Notes on P-1"/);
    expect(html).toMatch(/<span class="field-label">Add a note<\/span><textarea[^>]*maxLength="4000"/);
    expect(html).toMatch(/<span class="field-label">Your name<\/span><input[^>]*value="Ann"/);
    expect(html).toMatch(/type="submit"[^>]*data-testid="problem-note-add">Add note</);
    expect(html).toContain('No notes yet.');
  });

  it('notes newest first as given, with author and age; unknown author said so', () => {
    const html = renderNotes({
      status: 'ready',
      error: null,
      notes: [note('b', stamp(NOW - 2 * MIN), '', 'second'), note('a', stamp(NOW - 30 * MIN), 'Bo', 'first <i>x</i>')],
    });
    expect([...html.matchAll(/class="problem-note-text">([^<]*)</g)].map((m) => m[1])).toEqual(['second', 'first &lt;i&gt;x&lt;/i&gt;']);
    expect(html).toMatch(/data-testid="problem-note-by">Unknown operator<\/span> · 2 min ago/);
    expect(html).toMatch(/data-testid="problem-note-by">Bo<\/span> · 30 min ago/);
  });

  it('loading and load failure', () => {
    expect(renderNotes({ status: 'loading', notes: [], error: null })).toMatch(/role="status">Loading notes…/);
    expect(renderNotes({ status: 'error', notes: [], error: 'Cannot reach the Relay server.' })).toMatch(/role="alert">Notes could not be loaded: Cannot reach the Relay server./);
  });
});
