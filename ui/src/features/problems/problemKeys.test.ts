// The Problems tab shortcuts: which keys count (Alt alone; arrows not while typing; Alt+N in the
// view's fields too), and where Alt+↓/↑ land (next unaddressed in list order, wrapping, skipping
// addressed ones, pending writes as shown) and which problem Alt+N writes on.
import { describe, expect, it } from 'vitest';
import { isTypingTarget, nextUnaddressed, noteTarget, planProblemKey, problemKeyAction, shownAddressed, type ProblemKeyLike, type ProblemKeyScene } from './problemKeys';

const ids = (...xs: string[]) => xs.map((problemId) => ({ problemId }));
const addr = (...xs: string[]) => new Map(xs.map((id) => [id, { addressed: true }]));
const key = (k: string, extra: Partial<ProblemKeyLike> = {}): ProblemKeyLike => ({ key: k, altKey: true, ctrlKey: false, metaKey: false, shiftKey: false, ...extra });
const idle = { typing: false, inView: false };

describe('problemKeyAction', () => {
  it('Alt+↓ / Alt+↑ / Alt+N', () => {
    expect(problemKeyAction(key('ArrowDown'), idle)).toBe('next');
    expect(problemKeyAction(key('ArrowUp'), idle)).toBe('prev');
    expect(problemKeyAction(key('n'), idle)).toBe('note');
    expect(problemKeyAction(key('N'), idle)).toBe('note');
    expect(problemKeyAction(key('ArrowDown'), { typing: false, inView: true })).toBe('next');
  });

  it('macOS Option+N (a dead key) counts by its physical key', () => {
    expect(problemKeyAction(key('Dead', { code: 'KeyN' }), idle)).toBe('note');
    expect(problemKeyAction(key('˜', { code: 'KeyN' }), idle)).toBe('note');
  });

  it('needs Alt alone: no Ctrl, Cmd or Shift; plain keys and other Alt keys are not shortcuts', () => {
    expect(problemKeyAction(key('ArrowDown', { altKey: false }), idle)).toBeNull();
    expect(problemKeyAction(key('ArrowDown', { ctrlKey: true }), idle)).toBeNull();
    expect(problemKeyAction(key('ArrowUp', { metaKey: true }), idle)).toBeNull();
    expect(problemKeyAction(key('n', { shiftKey: true }), idle)).toBeNull();
    expect(problemKeyAction(key('ArrowLeft'), idle)).toBeNull();
    expect(problemKeyAction(key('m', { code: 'KeyM' }), idle)).toBeNull();
  });

  it('a key something else already handled is left alone', () => {
    expect(problemKeyAction(key('ArrowDown', { defaultPrevented: true }), idle)).toBeNull();
  });

  it('arrows are ignored while typing, in the view or not', () => {
    expect(problemKeyAction(key('ArrowDown'), { typing: true, inView: true })).toBeNull();
    expect(problemKeyAction(key('ArrowUp'), { typing: true, inView: false })).toBeNull();
  });

  it('Alt+N works in a field of the view, not in a field outside it', () => {
    expect(problemKeyAction(key('n'), { typing: true, inView: true })).toBe('note');
    expect(problemKeyAction(key('n'), { typing: true, inView: false })).toBeNull();
  });
});

describe('isTypingTarget', () => {
  it('text fields, textareas, selects and contenteditable are typing', () => {
    expect(isTypingTarget({ tagName: 'INPUT', type: 'text' })).toBe(true);
    expect(isTypingTarget({ tagName: 'INPUT', type: 'search' })).toBe(true);
    expect(isTypingTarget({ tagName: 'INPUT' })).toBe(true);
    expect(isTypingTarget({ tagName: 'TEXTAREA' })).toBe(true);
    expect(isTypingTarget({ tagName: 'SELECT' })).toBe(true);
    expect(isTypingTarget({ tagName: 'DIV', isContentEditable: true })).toBe(true);
  });
  it('checkboxes, buttons, rows and nothing focused are not', () => {
    expect(isTypingTarget({ tagName: 'INPUT', type: 'checkbox' })).toBe(false);
    expect(isTypingTarget({ tagName: 'INPUT', type: 'submit' })).toBe(false);
    expect(isTypingTarget({ tagName: 'BUTTON' })).toBe(false);
    expect(isTypingTarget({ tagName: 'ARTICLE', isContentEditable: false })).toBe(false);
    expect(isTypingTarget(null)).toBe(false);
  });
});

describe('shownAddressed', () => {
  it('the stored flag, overridden by a write in flight', () => {
    const states = new Map([['a', { addressed: true }], ['b', { addressed: false }]]);
    expect(shownAddressed('a', states)).toBe(true);
    expect(shownAddressed('b', states)).toBe(false);
    expect(shownAddressed('c', states)).toBe(false);
    expect(shownAddressed('a', states, new Map([['a', false]]))).toBe(false);
    expect(shownAddressed('c', states, new Map([['c', true]]))).toBe(true);
  });
});

describe('nextUnaddressed', () => {
  const order = ids('a', 'b', 'c', 'd', 'e');

  it('moves to the neighbour when it is unaddressed', () => {
    expect(nextUnaddressed(order, addr(), 'b', 1)).toBe('c');
    expect(nextUnaddressed(order, addr(), 'b', -1)).toBe('a');
  });

  it('skips addressed problems both ways', () => {
    const states = addr('c', 'd');
    expect(nextUnaddressed(order, states, 'b', 1)).toBe('e');
    expect(nextUnaddressed(order, states, 'e', -1)).toBe('b');
  });

  it('wraps around at either end', () => {
    expect(nextUnaddressed(order, addr(), 'e', 1)).toBe('a');
    expect(nextUnaddressed(order, addr(), 'a', -1)).toBe('e');
    expect(nextUnaddressed(order, addr('a', 'e'), 'd', 1)).toBe('b');
    expect(nextUnaddressed(order, addr('a', 'e'), 'b', -1)).toBe('d');
  });

  it('from an addressed current problem, still the next unaddressed one', () => {
    expect(nextUnaddressed(order, addr('b', 'c'), 'b', 1)).toBe('d');
    expect(nextUnaddressed(order, addr('b', 'c'), 'c', -1)).toBe('a');
  });

  it('no current problem: ↓ goes to the first unaddressed, ↑ to the last', () => {
    expect(nextUnaddressed(order, addr(), null, 1)).toBe('a');
    expect(nextUnaddressed(order, addr(), null, -1)).toBe('e');
    expect(nextUnaddressed(order, addr('a', 'b'), null, 1)).toBe('c');
    expect(nextUnaddressed(order, addr('d', 'e'), null, -1)).toBe('c');
  });

  it('a current problem no longer in the list counts as none', () => {
    expect(nextUnaddressed(order, addr('a'), 'gone', 1)).toBe('b');
    expect(nextUnaddressed(order, addr('e'), 'gone', -1)).toBe('d');
  });

  it('the only unaddressed problem: the move stays on it (or lands on it)', () => {
    const states = addr('a', 'b', 'd', 'e');
    expect(nextUnaddressed(order, states, 'c', 1)).toBe('c');
    expect(nextUnaddressed(order, states, 'c', -1)).toBe('c');
    expect(nextUnaddressed(order, states, 'a', -1)).toBe('c');
    expect(nextUnaddressed(order, states, null, 1)).toBe('c');
  });

  it('empty list or all addressed: nowhere to go', () => {
    expect(nextUnaddressed([], addr(), null, 1)).toBeNull();
    expect(nextUnaddressed([], addr(), 'a', -1)).toBeNull();
    const all = addr('a', 'b', 'c', 'd', 'e');
    expect(nextUnaddressed(order, all, null, 1)).toBeNull();
    expect(nextUnaddressed(order, all, 'c', 1)).toBeNull();
    expect(nextUnaddressed(order, all, 'c', -1)).toBeNull();
  });

  it('a one-problem list', () => {
    expect(nextUnaddressed(ids('a'), addr(), 'a', 1)).toBe('a');
    expect(nextUnaddressed(ids('a'), addr(), null, -1)).toBe('a');
    expect(nextUnaddressed(ids('a'), addr('a'), 'a', 1)).toBeNull();
  });

  it('stored "not addressed" records count as unaddressed', () => {
    const states = new Map([['b', { addressed: false }], ['c', { addressed: true }]]);
    expect(nextUnaddressed(order, states, 'a', 1)).toBe('b');
    expect(nextUnaddressed(order, states, 'b', 1)).toBe('d');
  });

  it('writes in flight count as the list shows them', () => {
    expect(nextUnaddressed(order, addr(), 'a', 1, new Map([['b', true]]))).toBe('c');
    expect(nextUnaddressed(order, addr('b'), 'a', 1, new Map([['b', false]]))).toBe('b');
  });

  it('follows the given order, not the ids', () => {
    const shuffled = ids('d', 'a', 'e', 'b');
    expect(nextUnaddressed(shuffled, addr('e'), 'a', 1)).toBe('b');
    expect(nextUnaddressed(shuffled, addr(), 'b', 1)).toBe('d');
  });

  it('walks a long list past rendered-row boundaries', () => {
    const long = Array.from({ length: 450 }, (_, i) => ({ problemId: `p${i}` }));
    const states = new Map(long.slice(0, 420).map((p) => [p.problemId, { addressed: true }]));
    expect(nextUnaddressed(long, states, 'p10', 1)).toBe('p420');
    expect(nextUnaddressed(long, states, 'p420', -1)).toBe('p449');
  });
});

describe('noteTarget', () => {
  const order = ids('a', 'b', 'c');
  it('the focused problem, addressed or not', () => {
    expect(noteTarget(order, addr(), 'b')).toBe('b');
    expect(noteTarget(order, addr('b'), 'b')).toBe('b');
  });
  it('else the first unaddressed; null when none', () => {
    expect(noteTarget(order, addr('a'), null)).toBe('b');
    expect(noteTarget(order, addr('a'), 'gone')).toBe('b');
    expect(noteTarget(order, addr('a', 'b', 'c'), null)).toBeNull();
    expect(noteTarget([], addr(), null)).toBeNull();
  });
});

describe('planProblemKey', () => {
  const order = Array.from({ length: 450 }, (_, i) => ({ problemId: `p${i}` }));
  const scene = (extra: Partial<ProblemKeyScene> = {}): ProblemKeyScene => ({
    order,
    states: addr(),
    notesOpen: new Set(),
    currentId: null,
    limit: 200,
    step: 200,
    ...extra,
  });
  const addressedUpTo = (n: number) => new Map(order.slice(0, n).map((p) => [p.problemId, { addressed: true }]));

  it('a rendered target keeps the limit and focuses the row', () => {
    expect(planProblemKey('next', scene({ currentId: 'p3' }))).toEqual({ id: 'p4', focus: 'row', limit: 200, openNotes: false });
    expect(planProblemKey('prev', scene({ currentId: 'p3' }))).toEqual({ id: 'p2', focus: 'row', limit: 200, openNotes: false });
  });

  it('a target past the rendered rows raises the limit in whole steps to show it', () => {
    expect(planProblemKey('next', scene({ states: addressedUpTo(200), currentId: 'p5' }))).toMatchObject({ id: 'p200', limit: 400 });
    expect(planProblemKey('next', scene({ states: addressedUpTo(420), currentId: 'p5' }))).toMatchObject({ id: 'p420', limit: 600 });
    // Alt+↑ from nothing wraps to the last problem, far past the first 200 rows.
    expect(planProblemKey('prev', scene())).toMatchObject({ id: 'p449', limit: 600 });
    // Already shown after a "Show more": the limit stays.
    expect(planProblemKey('next', scene({ states: addressedUpTo(200), currentId: 'p5', limit: 400 }))).toMatchObject({ id: 'p200', limit: 400 });
    // The last row of the rendered ones needs no more.
    expect(planProblemKey('next', scene({ states: addressedUpTo(199), currentId: 'p5' }))).toMatchObject({ id: 'p199', limit: 200 });
  });

  it('Alt+N: the focused problem, its notes opened when closed', () => {
    expect(planProblemKey('note', scene({ currentId: 'p7' }))).toEqual({ id: 'p7', focus: 'note', limit: 200, openNotes: true });
    expect(planProblemKey('note', scene({ currentId: 'p7', notesOpen: new Set(['p7']) }))).toEqual({ id: 'p7', focus: 'note', limit: 200, openNotes: false });
  });

  it('Alt+N without a focused problem: the first unaddressed, rendered if needed', () => {
    expect(planProblemKey('note', scene({ states: addressedUpTo(3) }))).toMatchObject({ id: 'p3', focus: 'note', openNotes: true });
    expect(planProblemKey('note', scene({ states: addressedUpTo(250) }))).toMatchObject({ id: 'p250', limit: 400 });
  });

  it('nothing to do: all addressed, or an empty list', () => {
    expect(planProblemKey('next', scene({ states: addressedUpTo(450) }))).toBeNull();
    expect(planProblemKey('note', scene({ states: addressedUpTo(450) }))).toBeNull();
    expect(planProblemKey('prev', scene({ order: [] }))).toBeNull();
  });
});
