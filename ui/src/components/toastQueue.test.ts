// The toast priority queue: the visible cap (three), the newest action result or notice replacing
// the oldest, identical toasts counted on the one showing, Dynatrace problem toasts taking
// precedence over service-status toasts (displacing them, shown first) and waiting their turn,
// dedupe by key, promotion on dismiss, and the bounded waiting line.
import { describe, expect, it } from 'vitest';
import { EMPTY_QUEUE, MAX_VISIBLE_TOASTS, TOAST_PRIORITY, dismiss, enqueue, type QueuedToast, type ToastQueue } from './toastQueue';

let seq = 0;
const toast = (priority: number, key: string | null = null, message = `t${seq + 1}`): QueuedToast => ({ id: ++seq, kind: 'info', message, priority, key });
const status = (msg?: string) => toast(TOAST_PRIORITY.status, null, msg);
const problem = (key: string) => toast(TOAST_PRIORITY.problem, key, `problem ${key}`);
const ids = (q: ToastQueue) => ({ visible: q.visible.map((t) => t.message), waiting: q.waiting.map((t) => t.message) });
const fill = (q: ToastQueue, ts: QueuedToast[], max = 3) => ts.reduce((acc, t) => enqueue(acc, t, max), q);

describe('toast queue', () => {
  it('shows at most three by default: the newest action result replaces the oldest, which is dropped', () => {
    expect(MAX_VISIBLE_TOASTS).toBe(3);
    const normal = (m: string) => toast(TOAST_PRIORITY.normal, null, m);
    const q = [normal('Saved 1'), normal('Saved 2'), normal('Saved 3'), normal('Saved 4'), normal('Saved 5')].reduce((acc, t) => enqueue(acc, t), EMPTY_QUEUE);
    expect(ids(q)).toEqual({ visible: ['Saved 3', 'Saved 4', 'Saved 5'], waiting: [] });
  });

  it('status notices of one priority: the newest replaces the oldest too', () => {
    const q = fill(EMPTY_QUEUE, [status('s1'), status('s2'), status('s3'), status('s4')]);
    expect(ids(q)).toEqual({ visible: ['s2', 's3', 's4'], waiting: [] });
  });

  it('an identical toast is counted on the one showing (and marks it shown again), not added', () => {
    let q = enqueue(EMPTY_QUEUE, toast(TOAST_PRIORITY.normal, null, 'Copied.'));
    const first = q.visible[0];
    q = enqueue(q, toast(TOAST_PRIORITY.normal, null, 'Copied.'));
    q = enqueue(q, toast(TOAST_PRIORITY.normal, null, 'Copied.'));
    expect(q.visible).toHaveLength(1);
    expect(q.visible[0]).toMatchObject({ id: first.id, message: 'Copied.', count: 3 });
    expect(q.visible[0].shown).toBeGreaterThan(first.id);
    // Another kind with the same words is another toast.
    q = enqueue(q, { ...toast(TOAST_PRIORITY.normal, null, 'Copied.'), kind: 'error' });
    expect(q.visible).toHaveLength(2);
  });

  it('a problem toast displaces the oldest status toast and is listed first', () => {
    let q = fill(EMPTY_QUEUE, [status('s1'), status('s2'), status('s3')]);
    q = enqueue(q, problem('P-1'), 3);
    expect(ids(q)).toEqual({ visible: ['problem P-1', 's2', 's3'], waiting: ['s1'] });
  });

  it('a status toast never displaces a problem toast; problems wait ahead of statuses', () => {
    let q = fill(EMPTY_QUEUE, [problem('a'), problem('b'), problem('c')]);
    q = enqueue(q, status('s1'), 3);
    q = enqueue(q, problem('d'), 3);
    expect(ids(q)).toEqual({ visible: ['problem a', 'problem b', 'problem c'], waiting: ['problem d', 's1'] });
    q = dismiss(q, q.visible[0].id, 3);
    expect(ids(q)).toEqual({ visible: ['problem b', 'problem c', 'problem d'], waiting: ['s1'] });
  });

  it('dedupes by key while the same key shows or waits; after dismissal it may show again', () => {
    let q = enqueue(EMPTY_QUEUE, problem('P-1'), 3);
    const again = enqueue(q, problem('P-1'), 3);
    expect(again).toBe(q);
    q = dismiss(q, q.visible[0].id, 3);
    q = enqueue(q, problem('P-1'), 3);
    expect(ids(q).visible).toEqual(['problem P-1']);
    // Unkeyed identical toasts are counted, not shown twice.
    q = fill(EMPTY_QUEUE, [status('same'), status('same')]);
    expect(q.visible).toHaveLength(1);
    expect(q.visible[0].count).toBe(2);
  });

  it('dismissing a waiting toast drops it; dismissing an unknown id changes nothing shown', () => {
    let q = fill(EMPTY_QUEUE, [problem('a'), problem('b'), problem('c'), status('s4')]);
    q = dismiss(q, q.waiting[0].id, 3);
    expect(ids(q)).toEqual({ visible: ['problem a', 'problem b', 'problem c'], waiting: [] });
    expect(ids(dismiss(q, 9999, 3))).toEqual(ids(q));
  });

  it('the waiting line is bounded: the lowest-priority, oldest toast goes first', () => {
    let q = fill(EMPTY_QUEUE, [problem('a')], 1);
    q = enqueue(q, status('s1'), 1, 2);
    q = enqueue(q, status('s2'), 1, 2);
    q = enqueue(q, problem('b'), 1, 2);
    expect(ids(q)).toEqual({ visible: ['problem a'], waiting: ['problem b', 's2'] });
  });

  it('normal toasts (action results) outrank status but not problems', () => {
    let q = fill(EMPTY_QUEUE, [status('s1'), toast(TOAST_PRIORITY.normal, null, 'saved')], 2);
    q = enqueue(q, problem('x'), 2);
    expect(ids(q)).toEqual({ visible: ['problem x', 'saved'], waiting: ['s1'] });
  });
});
