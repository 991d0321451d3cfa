// Problems tab writes (no React): the addressed flag (`dynatrace_problem_states`, one record per
// problem: update the one we hold, else create; a create refused by the unique problemId (400)
// means another operator created it meanwhile, so it is fetched by filter and updated), notes
// (`dynatrace_problem_notes`: create only — this module never sends an update or a delete there,
// which the server answers 403 and the transport would read as a lost session), merging note
// events into a newest-first list, and the operator's name kept on this device for "by <name>".
import { isTransportError, type RealtimeEvent, type Transport } from '../../transport/types';
import { MAX_AUTHOR_CHARS, MAX_NOTE_CHARS, PROBLEM_NOTES, PROBLEM_STATES, type ProblemNote, type ProblemState } from './problems';

export type StatesTransport = Pick<Transport, 'create' | 'update' | 'getFullList'>;
export type NotesTransport = Pick<Transport, 'create' | 'getFullList'>;

/** A PocketBase filter string literal: `"…"` with backslashes and quotes escaped. */
export function filterLiteral(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export function byProblemId(problemId: string): string {
  return `problemId=${filterLiteral(problemId)}`;
}

/** The states by problem id (the newest record wins if the server ever holds two). */
export function statesByProblem(states: readonly ProblemState[]): Map<string, ProblemState> {
  const m = new Map<string, ProblemState>();
  for (const s of states) {
    const held = m.get(s.problemId);
    if (!held || (s.updated ?? '') > (held.updated ?? '')) m.set(s.problemId, s);
  }
  return m;
}

/** What an addressed toggle writes. Un-addressing keeps who addressed it last. */
export function addressedPatch(addressed: boolean, by: string, nowMs: number): Partial<ProblemState> {
  return addressed
    ? { addressed: true, addressedAt: new Date(nowMs).toISOString(), addressedBy: by.trim().slice(0, MAX_AUTHOR_CHARS) }
    : { addressed: false };
}

/**
 * Sets the problem's addressed flag: updates `existing` when there is one, else creates the
 * record; a create refused as invalid (the unique problemId: someone created it meanwhile)
 * fetches that record and updates it. Resolves with the stored record.
 */
export async function setAddressed(
  t: StatesTransport,
  problemId: string,
  existing: ProblemState | undefined,
  addressed: boolean,
  by: string,
  nowMs: number = Date.now(),
): Promise<ProblemState> {
  const patch = addressedPatch(addressed, by, nowMs);
  if (existing) return t.update<ProblemState>(PROBLEM_STATES, existing.id, patch);
  try {
    return await t.create<ProblemState>(PROBLEM_STATES, { problemId, ...patch });
  } catch (err) {
    if (!isTransportError(err) || err.kind !== 'invalid') throw err;
    const [held] = await t.getFullList<ProblemState>(PROBLEM_STATES, { filter: byProblemId(problemId) });
    if (!held) throw err;
    return t.update<ProblemState>(PROBLEM_STATES, held.id, patch);
  }
}

/** Why a note cannot be sent, or null when it can. */
export function noteProblem(note: string, author: string): string | null {
  if (!note.trim()) return 'Write a note first.';
  if (note.length > MAX_NOTE_CHARS) return `A note holds at most ${MAX_NOTE_CHARS.toLocaleString('en-US')} characters.`;
  if (!author.trim()) return 'Enter your name so others know who wrote the note.';
  if (author.trim().length > MAX_AUTHOR_CHARS) return `A name holds at most ${MAX_AUTHOR_CHARS} characters.`;
  return null;
}

/** Appends a note (create only: notes are never edited or deleted). */
export function addNote(t: NotesTransport, problemId: string, note: string, author: string): Promise<ProblemNote> {
  return t.create<ProblemNote>(PROBLEM_NOTES, { problemId, note: note.trim(), author: author.trim() });
}

/** One problem's notes, newest first. */
export function listNotes(t: NotesTransport, problemId: string): Promise<ProblemNote[]> {
  return t.getFullList<ProblemNote>(PROBLEM_NOTES, { filter: byProblemId(problemId), sort: '-created' });
}

const newestFirst = (a: ProblemNote, b: ProblemNote) => (b.created ?? '').localeCompare(a.created ?? '') || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** `note` added to a newest-first list (once: a note already there by id is left as is). */
export function mergeNote(list: readonly ProblemNote[], note: ProblemNote): ProblemNote[] {
  if (list.some((n) => n.id === note.id)) return list as ProblemNote[];
  return [...list, note].sort(newestFirst);
}

/** A realtime event applied to one problem's notes: only creates for that problem count. */
export function applyNoteEvent(list: readonly ProblemNote[], problemId: string, e: RealtimeEvent): ProblemNote[] {
  const r = e.record as ProblemNote | undefined;
  if (e.action !== 'create' || !r || typeof r.id !== 'string' || r.problemId !== problemId) return list as ProblemNote[];
  return mergeNote(list, r);
}

// ---------------------------------------------------------------- operator name

export const OPERATOR_NAME_KEY = 'relay:operator-name';

type NameStorage = Pick<Storage, 'getItem' | 'setItem'>;

function storage(): NameStorage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

/** The name this device signs notes and addressed marks with ('' until one is entered). */
export function readOperatorName(s: NameStorage | null = storage()): string {
  try {
    return s?.getItem(OPERATOR_NAME_KEY) ?? '';
  } catch {
    return '';
  }
}

export function saveOperatorName(name: string, s: NameStorage | null = storage()): void {
  try {
    s?.setItem(OPERATOR_NAME_KEY, name.trim().slice(0, MAX_AUTHOR_CHARS));
  } catch {
    // Private mode or a full quota: the name is asked again next time.
  }
}
