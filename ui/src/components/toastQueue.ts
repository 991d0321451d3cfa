// The toast queue's rules (no React, no timers): a priority queue with a small cap on how many
// toasts show at once (three: more would cover the rows and their buttons). A keyed toast (a
// Dynatrace problem id) is dropped while one with the same key is showing or waiting; a toast
// identical to one showing or waiting (same kind, message and priority) is not added again: that
// one counts it (`count`, shown as "×2") and, when showing, starts its time again (`shown`). When
// every slot is taken, a new toast of higher priority takes the slot of the lowest-priority (then
// oldest) visible one, which goes back to wait; an action result or status notice of the same
// priority replaces the oldest of them, which is dropped (it was read or is stale), while a
// Dynatrace problem waits for its turn (each is an incident to see); one of lower priority waits.
// A freed slot goes to the waiting toast of highest priority (then oldest). The waiting line is
// bounded: past its cap the lowest-priority, oldest one is dropped. Visible toasts are listed
// highest priority first, then oldest first.
import type { ToastKind } from './Toasts';

/** Dynatrace problems > everything else (action results, presence…) > service-status notices. */
export const TOAST_PRIORITY = { status: 0, normal: 1, problem: 2 } as const;
export type ToastPriority = (typeof TOAST_PRIORITY)[keyof typeof TOAST_PRIORITY];

export const MAX_VISIBLE_TOASTS = 3;
export const MAX_WAITING_TOASTS = 20;

export interface QueuedToast {
  /** Increasing: also the arrival order. */
  id: number;
  kind: ToastKind;
  message: string;
  priority: number;
  /** Dedupe key (e.g. the problem id), or null. */
  key: string | null;
  /** How many identical toasts this one stands for (1 when absent). */
  count?: number;
  /** Changes each time an identical toast is added while this one shows: its time starts again. */
  shown?: number;
}

export interface ToastQueue {
  visible: QueuedToast[];
  waiting: QueuedToast[];
}

export const EMPTY_QUEUE: ToastQueue = { visible: [], waiting: [] };

/** Highest priority first, then oldest first. */
const order = (a: QueuedToast, b: QueuedToast) => b.priority - a.priority || a.id - b.id;

/** Adds a toast (see the module comment for the rules). */
export function enqueue(q: ToastQueue, t: QueuedToast, max = MAX_VISIBLE_TOASTS, maxWaiting = MAX_WAITING_TOASTS): ToastQueue {
  if (t.key !== null && [...q.visible, ...q.waiting].some((x) => x.key === t.key)) return q;
  const same = (x: QueuedToast) => x.kind === t.kind && x.message === t.message && x.priority === t.priority;
  const counted = (x: QueuedToast, showing: boolean): QueuedToast => ({ ...x, count: (x.count ?? 1) + 1, ...(showing ? { shown: t.id } : {}) });
  if (q.visible.some(same)) return { visible: q.visible.map((x) => (same(x) ? counted(x, true) : x)), waiting: q.waiting };
  if (q.waiting.some(same)) return { visible: q.visible, waiting: q.waiting.map((x) => (same(x) ? counted(x, false) : x)) };
  if (q.visible.length < max) return { visible: [...q.visible, t].sort(order), waiting: q.waiting };
  const lowest = [...q.visible].sort(order).at(-1);
  // The lowest-priority visible toast, and of those the oldest, gives up its slot.
  const victim = lowest && q.visible.filter((x) => x.priority === lowest.priority).sort((a, b) => a.id - b.id)[0];
  if (victim && victim.priority < t.priority) {
    return {
      visible: [...q.visible.filter((x) => x !== victim), t].sort(order),
      waiting: bound([...q.waiting, victim].sort(order), maxWaiting),
    };
  }
  // The newest action result or notice replaces the oldest of its own priority.
  if (victim && victim.priority === t.priority && t.priority < TOAST_PRIORITY.problem) return { visible: [...q.visible.filter((x) => x !== victim), t].sort(order), waiting: q.waiting };
  return { visible: q.visible, waiting: bound([...q.waiting, t].sort(order), maxWaiting) };
}

/** The waiting line past its cap loses its lowest-priority, oldest toasts. */
function bound(waiting: QueuedToast[], maxWaiting: number): QueuedToast[] {
  const out = [...waiting];
  while (out.length > maxWaiting) {
    const lowest = Math.min(...out.map((x) => x.priority));
    const idx = out.findIndex((x) => x.priority === lowest);
    out.splice(idx, 1);
  }
  return out;
}

/** Removes a toast (shown or waiting); freed slots go to the best waiting ones. */
export function dismiss(q: ToastQueue, id: number, max = MAX_VISIBLE_TOASTS): ToastQueue {
  const visible = q.visible.filter((x) => x.id !== id);
  const waiting = q.waiting.filter((x) => x.id !== id);
  const free = Math.max(0, max - visible.length);
  const promoted = waiting.slice(0, free);
  return { visible: [...visible, ...promoted].sort(order), waiting: waiting.slice(promoted.length) };
}
