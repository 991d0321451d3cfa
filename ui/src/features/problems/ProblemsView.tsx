// Problems tab: the Dynatrace problems the Relay server syncs (`dynatrace_problems`, live over
// realtime), with the sync banner from `dynatrace_problem_sync` (stale since / the error in plain
// words / next retry / a truncated result) or the "not configured" empty state, an Open/Closed/All
// filter and a search, and per problem: severity in words, status, age or duration, root cause,
// affected entities, alerting profiles, the Addressed checkbox (`dynatrace_problem_states`) and
// its notes (`dynatrace_problem_notes`, append-only, newest first, author shown). Every rule lives
// in ./problems and ./problemActions; `ProblemsBoard` and `NotesPanel` are props-in markup so the
// tests render them without a transport. Keys (./problemKeys, while the tab is shown): Alt+↓/↑
// focus the next / previous unaddressed problem (its row, scrolled into view, more rows rendered
// when it lies past them), Alt+N focuses the note field of the focused or first unaddressed one.
import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { errorMessage, useToast } from '../../components/Toasts';
import { useCollection } from '../../data/store';
import { useNow } from '../../lib/useNow';
import { useTransport } from '../../transport/context';
import { CommandText } from '../settings/CommandText';
import type { ServerPlace } from '../settings/serverPlace';
import { useServerPlace } from '../settings/useServerPlace';
import { formatAgo, parseStamp } from '../status/status';
import {
  addNote,
  applyNoteEvent,
  listNotes,
  mergeNote,
  noteProblem,
  readOperatorName,
  saveOperatorName,
  setAddressed,
  statesByProblem,
} from './problemActions';
import { PROBLEM_KEYS_HINT, isTypingTarget, planProblemKey, problemKeyAction } from './problemKeys';
import {
  MAX_AUTHOR_CHARS,
  MAX_NOTE_CHARS,
  PROBLEM_NOTES,
  PROBLEM_STATES,
  PROBLEM_SYNC,
  PROBLEMS,
  STATUS_FILTERS,
  entitiesOf,
  filterProblems,
  isOpen,
  problemLabel,
  problemTimeText,
  profilesOf,
  severityLabel,
  severityTone,
  shownSubject,
  statusCounts,
  syncBanner,
  syncRecord,
  type DynatraceProblem,
  type ProblemNote,
  type ProblemState,
  type ProblemSync,
  type StatusFilter,
  type SyncBanner,
} from './problems';

/** How often ages and durations re-render. */
export const TICK_MS = 15_000;
/** Affected entities listed before "and N more". */
export const ENTITIES_SHOWN = 6;

// ---------------------------------------------------------------- notes

export interface NotesState {
  status: 'loading' | 'ready' | 'error';
  notes: ProblemNote[];
  error: string | null;
}

export interface NotesPanelProps {
  problem: Pick<DynatraceProblem, 'problemId' | 'displayId'>;
  state: NotesState;
  name: string;
  onName: (name: string) => void;
  /** Resolves true when the note was stored (the draft is then cleared). */
  onAdd: (note: string) => Promise<boolean>;
  now: number;
}

export function NotesPanel({ problem, state, name, onName, onAdd, now }: NotesPanelProps) {
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const id = problem.problemId;
  const label = problemLabel(problem);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const refusal = noteProblem(draft, name);
    setError(refusal);
    if (refusal || sending) return;
    setSending(true);
    try {
      if (await onAdd(draft)) setDraft('');
    } finally {
      setSending(false);
    }
  };
  return (
    <section className="problem-notes" aria-label={`Notes on ${label}`} data-testid="problem-notes">
      <form className="form" onSubmit={(e) => void submit(e)} data-testid="problem-note-form">
        <label className="field">
          <span className="field-label">Add a note</span>
          <textarea className="input textarea" value={draft} maxLength={MAX_NOTE_CHARS} data-testid="problem-note-input"
            aria-describedby={error ? `note-error-${id}` : undefined} aria-invalid={error ? true : undefined}
            onChange={(e) => setDraft(e.target.value)} />
        </label>
        <div className="row-wrap">
          <label className="field">
            <span className="field-label">Your name</span>
            <input className="input" value={name} maxLength={MAX_AUTHOR_CHARS} autoComplete="name" data-testid="problem-note-author"
              onChange={(e) => onName(e.target.value)} />
          </label>
          <button type="submit" className="button button-primary" disabled={sending} aria-busy={sending} data-testid="problem-note-add">
            Add note
          </button>
        </div>
        {error && (
          <p className="error-text small" role="alert" id={`note-error-${id}`} data-testid="problem-note-error">
            {error}
          </p>
        )}
      </form>
      {state.status === 'loading' && <p className="muted small" role="status">Loading notes…</p>}
      {state.status === 'error' && (
        <p className="error-text small" role="alert">
          Notes could not be loaded: {state.error}
        </p>
      )}
      {state.status === 'ready' && state.notes.length === 0 && <p className="muted small">No notes yet.</p>}
      {state.notes.length > 0 && (
        <ol className="problem-note-list" data-testid="problem-note-list">
          {state.notes.map((n) => {
            const at = parseStamp(n.created);
            return (
              <li key={n.id} className="problem-note" data-testid="problem-note">
                <p className="problem-note-text">{n.note}</p>
                <p className="muted small">
                  <span data-testid="problem-note-by">{n.author || 'Unknown operator'}</span>
                  {at !== null && <> · {formatAgo(at, now)}</>}
                </p>
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}

/** One problem's notes: loaded when opened, kept current by realtime creates. */
function useProblemNotes(problemId: string): [NotesState, (note: ProblemNote) => void] {
  const transport = useTransport();
  const [state, setState] = useState<NotesState>({ status: 'loading', notes: [], error: null });
  useEffect(() => {
    let live = true;
    let unsub: (() => void) | null = null;
    transport
      .subscribe(PROBLEM_NOTES, (e) => setState((s) => ({ ...s, notes: applyNoteEvent(s.notes, problemId, e) })))
      .then((u) => {
        if (live) unsub = u;
        else u();
      })
      .catch(() => {});
    listNotes(transport, problemId)
      .then((list) => live && setState((s) => ({ status: 'ready', error: null, notes: list.reduce(mergeNote, s.notes) })))
      .catch((e: unknown) => live && setState((s) => ({ ...s, status: 'error', error: errorMessage(e, 'the request failed.') })));
    return () => {
      live = false;
      unsub?.();
    };
  }, [transport, problemId]);
  const added = useCallback((note: ProblemNote) => setState((s) => ({ ...s, notes: mergeNote(s.notes, note) })), []);
  return [state, added];
}

function ProblemNotes({ problem, name, onName, now }: { problem: DynatraceProblem; name: string; onName: (n: string) => void; now: number }) {
  const transport = useTransport();
  const toast = useToast();
  const [state, added] = useProblemNotes(problem.problemId);
  const onAdd = async (note: string) => {
    try {
      added(await addNote(transport, problem.problemId, note, name));
      saveOperatorName(name);
      return true;
    } catch (e) {
      toast('error', `The note could not be saved: ${errorMessage(e)}`);
      return false;
    }
  };
  return <NotesPanel problem={problem} state={state} name={name} onName={onName} onAdd={onAdd} now={now} />;
}

// ---------------------------------------------------------------- the board

function Banner({ banner }: { banner: SyncBanner }) {
  return (
    <div className={`problems-banner problems-banner-${banner.tone}`} role={banner.tone === 'error' ? 'alert' : 'status'} data-testid="problems-sync" data-tone={banner.tone}>
      <p className="problems-banner-title">{banner.title}</p>
      {banner.details.map((d) => (
        <p key={d} className="small">
          <CommandText text={d} />
        </p>
      ))}
    </div>
  );
}

function Entities({ problem }: { problem: DynatraceProblem }) {
  const all = entitiesOf(problem);
  if (!all.length) return <span className="muted">None listed</span>;
  const shown = all.slice(0, ENTITIES_SHOWN);
  return (
    <>
      {shown.map((e, i) => (
        <span key={`${e.id}-${i}`} className="problem-entity">
          {e.name}
          {e.type && <span className="muted small"> ({e.type.toLowerCase().replace(/_/g, ' ')})</span>}
          {i < shown.length - 1 ? ', ' : ''}
        </span>
      ))}
      {all.length > shown.length && <span className="muted"> and {all.length - shown.length} more</span>}
    </>
  );
}

interface RowProps {
  problem: DynatraceProblem;
  state: ProblemState | undefined;
  now: number;
  /** The value being written (shown at once), or undefined when no write runs. */
  pending: boolean | undefined;
  notesOpen: boolean;
  onAddressed: (p: DynatraceProblem, next: boolean) => void;
  onNotes: (problemId: string) => void;
  notes: ReactNode;
}

function ProblemRow({ problem: p, state, now, pending, notesOpen, onAddressed, onNotes, notes }: RowProps) {
  const label = problemLabel(p);
  const open = isOpen(p);
  const tone = severityTone(p.severity);
  const stored = state?.addressed === true;
  const busy = pending !== undefined;
  const addressed = busy ? pending : stored;
  const addressedAt = parseStamp(state?.addressedAt);
  const profiles = profilesOf(p);
  const key = p.id;
  return (
    <li className={`problem problem-${open ? 'open' : 'closed'}`} data-testid="problem" data-problem-id={p.problemId}>
      <article className="problem-card" tabIndex={-1} aria-labelledby={`problem-title-${key}`}>
        <div className="problem-head">
          <span className={`problem-sev problem-sev-${tone}`} data-testid="problem-severity">
            <span className="visually-hidden">Severity: </span>
            {severityLabel(p.severity)}
          </span>
          <span className={`problem-status problem-status-${open ? 'open' : 'closed'}`} data-testid="problem-status">
            {open ? 'Open' : 'Closed'}
          </span>
          <span className="muted small" data-testid="problem-id">
            {label}
          </span>
          <span className="muted small push-right" data-testid="problem-time">
            {problemTimeText(p, now)}
          </span>
        </div>
        <h2 className="problem-title" id={`problem-title-${key}`}>
          {p.title || 'Untitled problem'}
        </h2>
        <dl className="kv problem-facts">
          <dt>Root cause</dt>
          <dd data-testid="problem-root-cause">{p.rootCauseName || <span className="muted">Not identified</span>}</dd>
          <dt>Affected</dt>
          <dd data-testid="problem-entities">
            <Entities problem={p} />
          </dd>
          {profiles.length > 0 && (
            <>
              <dt>Alerting profiles</dt>
              <dd>{profiles.join(', ')}</dd>
            </>
          )}
          {shownSubject(p) && (
            <>
              <dt>Notification</dt>
              <dd>{shownSubject(p)}</dd>
            </>
          )}
        </dl>
        <div className="problem-actions">
          <label className="checkbox-row problem-addressed">
            <input type="checkbox" checked={addressed} disabled={busy} aria-busy={busy || undefined} data-testid="problem-addressed"
              onChange={(e) => onAddressed(p, e.target.checked)} />
            Addressed<span className="visually-hidden"> ({label})</span>
          </label>
          {addressed && stored && (state?.addressedBy || addressedAt !== null) && (
            <span className="muted small" data-testid="problem-addressed-by">
              {state?.addressedBy ? `by ${state.addressedBy}` : ''}
              {state?.addressedBy && addressedAt !== null ? ' · ' : ''}
              {addressedAt !== null ? formatAgo(addressedAt, now) : ''}
            </span>
          )}
          <button type="button" className="button button-ghost small" aria-expanded={notesOpen} aria-controls={`problem-notes-${key}`}
            data-testid="problem-notes-toggle" onClick={() => onNotes(p.problemId)}>
            {notesOpen ? 'Hide notes' : 'Notes'}
            <span className="visually-hidden"> for {label}</span>
          </button>
        </div>
        <div id={`problem-notes-${key}`} hidden={!notesOpen}>
          {notesOpen && notes}
        </div>
      </article>
    </li>
  );
}

export interface ProblemsBoardProps {
  status: 'loading' | 'ready' | 'error';
  error: string | null;
  problems: readonly DynatraceProblem[];
  states: ReadonlyMap<string, ProblemState>;
  sync: ProblemSync | null;
  /** False until the sync collection answered (no banner flashes before). */
  syncLoaded: boolean;
  now: number;
  filter: StatusFilter;
  query: string;
  onFilter: (f: StatusFilter) => void;
  onQuery: (q: string) => void;
  /** Addressed writes in flight: problem id → the value being written. */
  pending: ReadonlyMap<string, boolean>;
  notesOpen: ReadonlySet<string>;
  onAddressed: (p: DynatraceProblem, next: boolean) => void;
  onNotes: (problemId: string) => void;
  renderNotes: (p: DynatraceProblem) => ReactNode;
  /** Where this renderer runs: the "not configured" text names the path that exists here. */
  place?: ServerPlace;
}

/** Rows rendered at first and added by each "Show more" (the list stays quick at 10,000 problems). */
export const ROWS_PER_STEP = 200;

const EMPTY_TEXT: Record<StatusFilter, string> = { open: 'No open problems.', closed: 'No closed problems.', all: 'No problems.' };

/** A focus asked for by a shortcut, applied once its row (or note field) is rendered. */
interface FocusRequest {
  id: string;
  what: 'row' | 'note';
  at: number;
}
/** A request whose row never rendered (the list changed meanwhile) is dropped after this. */
const FOCUS_REQUEST_MS = 2_000;

/** The row of `problemId` in `root`, if rendered. */
function rowOf(root: HTMLElement, problemId: string): HTMLElement | undefined {
  return Array.from(root.querySelectorAll<HTMLElement>('[data-problem-id]')).find((el) => el.dataset.problemId === problemId);
}

/** Focuses and scrolls to what `want` asks for; false while it is not rendered yet. */
function applyFocus(root: HTMLElement, want: FocusRequest): boolean {
  const row = rowOf(root, want.id);
  const el = want.what === 'note' ? row?.querySelector<HTMLElement>('[data-testid="problem-note-input"]') : row?.querySelector<HTMLElement>('.problem-card');
  if (!row || !el) return false;
  el.focus({ preventScroll: true });
  (want.what === 'note' ? el : row).scrollIntoView({ block: 'nearest' });
  return true;
}

export function ProblemsBoard(props: ProblemsBoardProps) {
  const { status, error, problems, states, sync, syncLoaded, now, filter, query, place = 'direct' } = props;
  const banner = syncLoaded ? syncBanner(sync, now, place) : null;
  const counts = statusCounts(problems);
  const matching = filterProblems(problems, filter, query);
  const [limit, setLimit] = useState(ROWS_PER_STEP);
  useEffect(() => setLimit(ROWS_PER_STEP), [filter, query]);
  const shown = matching.slice(0, limit);
  const notConfigured = banner?.notConfigured === true && problems.length === 0;

  // ---- keys: one window listener; the handler reads this render's list through a ref.
  const viewRef = useRef<HTMLElement>(null);
  const focusWanted = useRef<FocusRequest | null>(null);
  const onKeyRef = useRef<(e: KeyboardEvent) => void>(() => {});
  useEffect(() => {
    onKeyRef.current = (e: KeyboardEvent) => {
      const view = viewRef.current;
      // Only while this tab is shown (hidden tabs stay mounted) and no dialog or menu is over it.
      if (!view || !view.isConnected || view.closest('[hidden]')) return;
      if (document.querySelector('[role="dialog"], [role="alertdialog"], [role="menu"]')) return;
      const active = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      const inView = active !== null && view.contains(active);
      const action = problemKeyAction(e, { typing: isTypingTarget(active), inView });
      if (!action) return;
      const currentId = (inView && active.closest<HTMLElement>('[data-problem-id]')?.dataset.problemId) || null;
      const plan = planProblemKey(action, {
        order: matching,
        states,
        pending: props.pending,
        notesOpen: props.notesOpen,
        currentId,
        limit,
        step: ROWS_PER_STEP,
      });
      if (!plan) return;
      e.preventDefault();
      if (plan.limit !== limit) setLimit(plan.limit);
      if (plan.openNotes) props.onNotes(plan.id);
      const want: FocusRequest = { id: plan.id, what: plan.focus, at: Date.now() };
      focusWanted.current = applyFocus(view, want) ? null : want;
    };
  });
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => onKeyRef.current(e);
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  // After each render: a row (or notes panel) a shortcut asked for may have rendered now.
  useEffect(() => {
    const want = focusWanted.current;
    const view = viewRef.current;
    if (!want || !view) return;
    if (Date.now() - want.at > FOCUS_REQUEST_MS || applyFocus(view, want)) focusWanted.current = null;
  });

  return (
    <section className="view problems-view" data-testid="problems-view" ref={viewRef}>
      <header className="view-header">
        <h1 className="view-title">Problems</h1>
        <span className="muted small">Dynatrace</span>
      </header>
      {banner && !notConfigured && banner.tone !== 'ok' && <Banner banner={banner} />}
      {banner?.tone === 'ok' && (
        <p className="muted small" role="status" data-testid="problems-sync" data-tone="ok">
          {banner.title}
        </p>
      )}
      {notConfigured ? (
        <div className="panel card empty" data-testid="problems-not-configured">
          <h2>{banner.title}</h2>
          {banner.details.map((d) => (
            <p key={d} className="muted">
              <CommandText text={d} />
            </p>
          ))}
        </div>
      ) : (
        <>
          <div className="toolbar problems-toolbar">
            <div className="seg" role="group" aria-label="Show problems" data-testid="problems-filter">
              {STATUS_FILTERS.map((f) => (
                <button key={f.id} type="button" className={`seg-btn${filter === f.id ? ' seg-on' : ''}`} aria-pressed={filter === f.id}
                  data-testid={`problems-filter-${f.id}`} onClick={() => props.onFilter(f.id)}>
                  {f.label} ({counts[f.id]})
                </button>
              ))}
            </div>
            <label className="field problems-search">
              <span className="field-label">Search problems</span>
              <input className="input" type="search" value={query} data-testid="problems-search" placeholder="Title, id, entity, root cause…"
                onChange={(e) => props.onQuery(e.target.value)} />
            </label>
            <p className="muted small problems-keys" id="problems-keys" data-testid="problems-keys">
              Keys: {PROBLEM_KEYS_HINT}
            </p>
          </div>
          {status === 'loading' && problems.length === 0 && (
            <p className="muted" role="status" data-testid="problems-loading">
              Loading problems…
            </p>
          )}
          {status === 'error' && problems.length === 0 && (
            <p className="error-text" role="alert" data-testid="problems-error">
              Problems could not be loaded: {error}
            </p>
          )}
          {status !== 'loading' && status !== 'error' && shown.length === 0 && (
            <p className="muted empty" data-testid="problems-empty">
              {query.trim() ? 'No problems match the search.' : EMPTY_TEXT[filter]}
            </p>
          )}
          {shown.length > 0 && (
            <ul className="problem-list" aria-label={`${matching.length} problem${matching.length === 1 ? '' : 's'}`} data-testid="problem-list">
              {shown.map((p) => (
                <ProblemRow key={p.id} problem={p} state={states.get(p.problemId)} now={now} pending={props.pending.get(p.problemId)}
                  notesOpen={props.notesOpen.has(p.problemId)} onAddressed={props.onAddressed} onNotes={props.onNotes} notes={props.renderNotes(p)} />
              ))}
            </ul>
          )}
          {matching.length > shown.length && (
            <div className="problems-more">
              <span className="muted small" data-testid="problems-shown">
                Showing {shown.length} of {matching.length}
              </span>
              <button type="button" className="button small" data-testid="problems-more"
                onClick={() => setLimit((n) => n + ROWS_PER_STEP)}>
                Show {Math.min(ROWS_PER_STEP, matching.length - shown.length)} more
              </button>
            </div>
          )}
        </>
      )}
    </section>
  );
}

const toggled = (set: ReadonlySet<string>, id: string, on: boolean) => {
  const next = new Set(set);
  if (on) next.add(id);
  else next.delete(id);
  return next;
};

export default function ProblemsView() {
  const problems = useCollection<DynatraceProblem>(PROBLEMS);
  const states = useCollection<ProblemState>(PROBLEM_STATES);
  const sync = useCollection<ProblemSync>(PROBLEM_SYNC);
  const transport = useTransport();
  const place = useServerPlace();
  const toast = useToast();
  const now = useNow(TICK_MS);
  const [filter, setFilter] = useState<StatusFilter>('open');
  const [query, setQuery] = useState('');
  const [name, setName] = useState(readOperatorName);
  const [pending, setPending] = useState<ReadonlyMap<string, boolean>>(new Map());
  const [notesOpen, setNotesOpen] = useState<ReadonlySet<string>>(new Set());
  const stateMap = useMemo(() => statesByProblem(states.items), [states.items]);
  const statesStore = states.store;

  const onAddressed = useCallback(
    async (p: DynatraceProblem, next: boolean) => {
      setPending((m) => new Map(m).set(p.problemId, next));
      try {
        const stored = await setAddressed(transport, p.problemId, stateMap.get(p.problemId), next, name);
        if (stored && typeof stored.id === 'string') statesStore.upsertLocal(stored);
        if (next && name.trim()) saveOperatorName(name);
      } catch (e) {
        toast('error', `${problemLabel(p)} could not be marked ${next ? 'addressed' : 'not addressed'}: ${errorMessage(e)}`);
      } finally {
        setPending((m) => {
          const rest = new Map(m);
          rest.delete(p.problemId);
          return rest;
        });
      }
    },
    [transport, stateMap, name, statesStore, toast],
  );

  return (
    <ProblemsBoard
      status={problems.status}
      error={problems.error}
      problems={problems.items}
      states={stateMap}
      sync={syncRecord(sync.items)}
      syncLoaded={sync.status !== 'loading'}
      place={place}
      now={now}
      filter={filter}
      query={query}
      onFilter={setFilter}
      onQuery={setQuery}
      pending={pending}
      notesOpen={notesOpen}
      onAddressed={(p, next) => void onAddressed(p, next)}
      onNotes={(id) => setNotesOpen((s) => toggled(s, id, !s.has(id)))}
      renderNotes={(p) => <ProblemNotes problem={p} name={name} onName={setName} now={now} />}
    />
  );
}
