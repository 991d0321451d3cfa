// Problems tab writes against a recording fake transport: the addressed flag (update, create,
// create refused by the unique problemId → fetch and update, other failures passed on), notes
// (create only, never update/delete), the filter literal, merging note events, the name store.
import { describe, expect, it } from 'vitest';
import { TransportError, type FullListOptions } from '../../transport/types';
import {
  addNote,
  addressedPatch,
  applyNoteEvent,
  byProblemId,
  filterLiteral,
  listNotes,
  mergeNote,
  noteProblem,
  readOperatorName,
  saveOperatorName,
  setAddressed,
  statesByProblem,
  type StatesTransport,
} from './problemActions';
import type { ProblemNote, ProblemState } from './problems';

const NOW = Date.parse('2026-12-05T12:00:00.000Z');

type Call = [string, string, ...unknown[]];

function fake(opts: { createFails?: TransportError; held?: ProblemState[] } = {}) {
  const calls: Call[] = [];
  const t: StatesTransport & { calls: Call[] } = {
    calls,
    async create<T>(c: string, data: object): Promise<T> {
      calls.push(['create', c, data]);
      if (opts.createFails) throw opts.createFails;
      return { id: 'new1', ...data } as T;
    },
    async update<T>(c: string, id: string, data: object): Promise<T> {
      calls.push(['update', c, id, data]);
      return { id, ...data } as T;
    },
    async getFullList<T>(c: string, o?: FullListOptions): Promise<T[]> {
      calls.push(['getFullList', c, o]);
      return (opts.held ?? []) as T[];
    },
  };
  return t;
}

const state = (extra: Partial<ProblemState> = {}): ProblemState => ({
  id: 's1',
  created: '',
  updated: '2026-12-05 10:00:00.000Z',
  problemId: 'p1',
  addressed: false,
  addressedAt: '',
  addressedBy: '',
  ...extra,
});
const note = (id: string, created: string, extra: Partial<ProblemNote> = {}): ProblemNote => ({ id, created, updated: created, problemId: 'p1', note: 'n', author: 'Ann', ...extra });

describe('addressed', () => {
  it('the patch: who and when when addressed; only the flag when cleared', () => {
    expect(addressedPatch(true, '  Ann  ', NOW)).toEqual({ addressed: true, addressedAt: '2026-12-05T12:00:00.000Z', addressedBy: 'Ann' });
    expect(addressedPatch(false, 'Ann', NOW)).toEqual({ addressed: false });
  });

  it('updates the record held', async () => {
    const t = fake();
    await setAddressed(t, 'p1', state(), true, 'Ann', NOW);
    expect(t.calls).toEqual([['update', 'dynatrace_problem_states', 's1', { addressed: true, addressedAt: '2026-12-05T12:00:00.000Z', addressedBy: 'Ann' }]]);
  });

  it('creates one when none is held', async () => {
    const t = fake();
    const r = await setAddressed(t, 'p1', undefined, false, 'Ann', NOW);
    expect(t.calls).toEqual([['create', 'dynatrace_problem_states', { problemId: 'p1', addressed: false }]]);
    expect(r.id).toBe('new1');
  });

  it('a create refused by the unique problemId (400): fetch the existing record and update it', async () => {
    const t = fake({ createFails: new TransportError({ kind: 'invalid', status: 400, message: 'not unique' }), held: [state({ id: 'other' })] });
    const r = await setAddressed(t, 'p"1', undefined, true, 'Ann', NOW);
    expect(t.calls.map((c) => c[0])).toEqual(['create', 'getFullList', 'update']);
    expect(t.calls[1]).toEqual(['getFullList', 'dynatrace_problem_states', { filter: 'problemId="p\\"1"' }]);
    expect(t.calls[2][2]).toBe('other');
    expect(r.id).toBe('other');
  });

  it('other failures (or nothing to update) are passed on', async () => {
    const network = new TransportError({ kind: 'network', status: 0, message: 'Cannot reach the Relay server.' });
    await expect(setAddressed(fake({ createFails: network }), 'p1', undefined, true, 'Ann', NOW)).rejects.toBe(network);
    const invalid = new TransportError({ kind: 'invalid', status: 400, message: 'bad' });
    await expect(setAddressed(fake({ createFails: invalid, held: [] }), 'p1', undefined, true, 'Ann', NOW)).rejects.toBe(invalid);
  });

  it('states by problem id: the newest record wins', () => {
    const m = statesByProblem([state({ id: 'a', updated: '2026-12-05 10:00:00.000Z' }), state({ id: 'b', updated: '2026-12-05 11:00:00.000Z' }), state({ id: 'c', problemId: 'p2' })]);
    expect(m.get('p1')?.id).toBe('b');
    expect(m.get('p2')?.id).toBe('c');
  });
});

describe('notes', () => {
  it('filter literal escapes quotes and backslashes', () => {
    expect(filterLiteral('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(byProblemId('-123_V2')).toBe('problemId="-123_V2"');
  });

  it('append creates (trimmed) and the list asks newest first; nothing else is ever sent', async () => {
    const t = fake();
    await addNote(t, 'p1', '  restarted the pod  ', ' Ann ');
    await listNotes(t, 'p1');
    expect(t.calls).toEqual([
      ['create', 'dynatrace_problem_notes', { problemId: 'p1', note: 'restarted the pod', author: 'Ann' }],
      ['getFullList', 'dynatrace_problem_notes', { filter: 'problemId="p1"', sort: '-created' }],
    ]);
    expect(t.calls.some((c) => c[0] === 'update' || c[0] === 'remove')).toBe(false);
  });

  it('validation in plain words', () => {
    expect(noteProblem('  ', 'Ann')).toBe('Write a note first.');
    expect(noteProblem('x'.repeat(4001), 'Ann')).toMatch(/at most 4,000 characters/);
    expect(noteProblem('ok', ' ')).toMatch(/Enter your name/);
    expect(noteProblem('ok', 'Ann')).toBeNull();
  });

  it('merging: newest first, once by id; events for other problems or other actions are ignored', () => {
    const list = [note('b', '2026-12-05 11:00:00.000Z'), note('a', '2026-12-05 10:00:00.000Z')];
    const c = note('c', '2026-12-05 12:00:00.000Z');
    expect(mergeNote(list, c).map((n) => n.id)).toEqual(['c', 'b', 'a']);
    expect(mergeNote(list, list[0])).toBe(list);
    expect(applyNoteEvent(list, 'p1', { action: 'create', record: c }).map((n) => n.id)).toEqual(['c', 'b', 'a']);
    expect(applyNoteEvent(list, 'p1', { action: 'create', record: { ...c, problemId: 'p2' } })).toBe(list);
    expect(applyNoteEvent(list, 'p1', { action: 'update', record: c })).toBe(list);
  });
});

describe('operator name', () => {
  it('kept on this device, trimmed; a failing storage reads as none', () => {
    const m = new Map<string, string>();
    const s = { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v) };
    expect(readOperatorName(s)).toBe('');
    saveOperatorName('  Ann  ', s);
    expect(readOperatorName(s)).toBe('Ann');
    const broken = { getItem: () => { throw new Error('denied'); }, setItem: () => { throw new Error('denied'); } };
    expect(readOperatorName(broken)).toBe('');
    expect(() => saveOperatorName('x', broken)).not.toThrow();
    expect(readOperatorName(null)).toBe('');
  });
});
