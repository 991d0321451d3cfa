// Problems tab keyboard shortcuts (no React, no DOM): which key does what (Alt+↓/↑ next or
// previous unaddressed problem, Alt+N add a note), and which problem the move lands on — the
// next unaddressed one in list order, wrapping around, addressed ones skipped — and the whole
// plan of a key (the problem, row or note field, the rendered-row limit that shows it, whether
// its notes must open), which the view then carries out on the DOM.

/** What a handled shortcut asks for. */
export type ProblemKeyAction = 'next' | 'prev' | 'note';

export interface ProblemKeyLike {
  key: string;
  code?: string;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  defaultPrevented?: boolean;
}

export interface ProblemKeyContext {
  /** Focus is in a text field (input, textarea, select, contenteditable). */
  typing: boolean;
  /** Focus is inside the Problems view. */
  inView: boolean;
}

/** The help line shown in the view (and what the screen reader hears). */
export const PROBLEM_KEYS_HINT = 'Alt+↓/↑ next unaddressed problem, Alt+N add a note';

/** Input types that take no typing (the Addressed checkbox): the arrows still move from them. */
const NO_TYPING_INPUTS = new Set(['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file', 'image']);

/** Whether focus on `el` means typing: a text input, textarea, select or contenteditable. */
export function isTypingTarget(el: { tagName?: string; type?: string; isContentEditable?: boolean } | null | undefined): boolean {
  if (!el) return false;
  if (el.isContentEditable) return true;
  const tag = (el.tagName ?? '').toUpperCase();
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  return tag === 'INPUT' && !NO_TYPING_INPUTS.has((el.type ?? 'text').toLowerCase());
}

/**
 * The shortcut `e` is, or null. Alt alone (no Ctrl, Cmd or Shift). The arrows are ignored while
 * typing (Alt+arrows move the caret or open a select there); Alt+N works in any field inside the
 * view but not in one outside it (the global search keeps its keys). On macOS Option+N types a
 * dead key, so the physical key (`code` KeyN) counts too.
 */
export function problemKeyAction(e: ProblemKeyLike, ctx: ProblemKeyContext): ProblemKeyAction | null {
  if (e.defaultPrevented || !e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return null;
  if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
    if (ctx.typing) return null;
    return e.key === 'ArrowDown' ? 'next' : 'prev';
  }
  if (e.key === 'n' || e.key === 'N' || e.code === 'KeyN') {
    if (ctx.typing && !ctx.inView) return null;
    return 'note';
  }
  return null;
}

/** The addressed flag as the list shows it: a write in flight wins over the stored state. */
export function shownAddressed(
  problemId: string,
  states: ReadonlyMap<string, { addressed: boolean }>,
  pending?: ReadonlyMap<string, boolean>,
): boolean {
  const inFlight = pending?.get(problemId);
  return inFlight ?? states.get(problemId)?.addressed === true;
}

/**
 * The problem an Alt+↓ (`dir` 1) or Alt+↑ (`dir` -1) moves to: the next unaddressed problem
 * after `currentId` in `order`, wrapping around; addressed ones are skipped. With no current
 * problem (null, or one no longer in the list) ↓ goes to the first unaddressed and ↑ to the
 * last. When the current problem is the only unaddressed one it is the answer (focus stays);
 * null when none is unaddressed or the list is empty.
 */
export function nextUnaddressed(
  order: readonly { problemId: string }[],
  states: ReadonlyMap<string, { addressed: boolean }>,
  currentId: string | null,
  dir: 1 | -1,
  pending?: ReadonlyMap<string, boolean>,
): string | null {
  const n = order.length;
  if (!n) return null;
  const at = currentId === null ? -1 : order.findIndex((p) => p.problemId === currentId);
  // Without a current problem, start just outside the list so the first step lands on an end.
  const start = at >= 0 ? at : dir === 1 ? -1 : n;
  for (let step = 1; step <= n; step++) {
    const i = (((start + dir * step) % n) + n) % n;
    const id = order[i].problemId;
    if (!shownAddressed(id, states, pending)) return id;
  }
  return null;
}

/** The problem Alt+N writes on: the focused one, else the first unaddressed (null if none). */
export function noteTarget(
  order: readonly { problemId: string }[],
  states: ReadonlyMap<string, { addressed: boolean }>,
  currentId: string | null,
  pending?: ReadonlyMap<string, boolean>,
): string | null {
  if (currentId !== null && order.some((p) => p.problemId === currentId)) return currentId;
  return nextUnaddressed(order, states, null, 1, pending);
}

export interface ProblemKeyPlan {
  /** The problem to focus. */
  id: string;
  /** Its row, or its note field. */
  focus: 'row' | 'note';
  /** The rendered-row limit that shows it (the old limit when it is already rendered). */
  limit: number;
  /** Its notes panel must be opened first. */
  openNotes: boolean;
}

export interface ProblemKeyScene {
  /** The problems in list order (filtered and sorted, all of them, not only the rendered rows). */
  order: readonly { problemId: string }[];
  states: ReadonlyMap<string, { addressed: boolean }>;
  pending?: ReadonlyMap<string, boolean>;
  notesOpen: ReadonlySet<string>;
  /** The problem whose row holds focus, or null. */
  currentId: string | null;
  /** Rows rendered now, and the step "Show more" adds. */
  limit: number;
  step: number;
}

/** What a shortcut does in `scene`, or null when there is nothing to do (the key is then not handled). */
export function planProblemKey(action: ProblemKeyAction, scene: ProblemKeyScene): ProblemKeyPlan | null {
  const { order, states, pending, currentId } = scene;
  const id = action === 'note' ? noteTarget(order, states, currentId, pending) : nextUnaddressed(order, states, currentId, action === 'next' ? 1 : -1, pending);
  if (id === null) return null;
  const index = order.findIndex((p) => p.problemId === id);
  const limit = index < scene.limit ? scene.limit : Math.ceil((index + 1) / scene.step) * scene.step;
  return { id, focus: action === 'note' ? 'note' : 'row', limit, openNotes: action === 'note' && !scene.notesOpen.has(id) };
}
