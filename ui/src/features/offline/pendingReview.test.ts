// The review flow over a real OfflineSync and a fake shell: the list page by page ("Load more"),
// a review beside the server copy, "Keep server version" and "Retry with my change" (edits only
// with a retry) sent with the review's token, then a refreshed list and status; the shell's
// refusal texts shown and a fresh review asked for.
import { describe, expect, it, vi } from 'vitest';
import { OfflineSync } from '../../data/offlineSync';
import { fakeOffline } from '../../data/offlineTestkit';
import { BridgeRefusal } from '../../transport/desktop';
import type { PendingChange } from '../../transport/types';
import { PendingReview } from './pendingReview';

const change = (id: number, reason = 'Server conflict'): PendingChange => ({
  id,
  collection: 'contacts',
  action: 'update',
  recordId: 'abcdefghijklmno',
  label: `Contact ${id}`,
  reason,
});
const SYNCING = 'Sync is in progress. Wait for it to finish, then review again.';
const MOVED = 'This change or connection has changed. Review it again before resolving.';

function setup(reachable = false) {
  const f = fakeOffline();
  const reload = vi.fn();
  const sync = new OfflineSync(f.bridge, { reload, reachable: () => reachable });
  f.pages.set(undefined, { items: Array.from({ length: 25 }, (_, i) => change(i + 1)), nextAfterId: 25 });
  f.pages.set(25, { items: [change(26, 'Waiting to sync')], nextAfterId: null });
  f.reviews.set(3, { token: 'tok-3', change: { action: 'update' }, local: { id: 'abcdefghijklmno', name: 'Ann B', vip: true }, server: { state: 'present', record: { name: 'Ann C', vip: true } } });
  const review = new PendingReview(sync);
  return { f, reload, sync, review };
}

describe('PendingReview', () => {
  it('lists page by page and stops offering more on the last page', async () => {
    const { f, review } = setup();
    expect(review.getSnapshot().loading).toBe(true);
    await review.load();
    expect(review.getSnapshot()).toMatchObject({ loading: false, nextAfterId: 25, error: null });
    expect(review.getSnapshot().items).toHaveLength(25);
    await review.loadMore();
    expect(review.getSnapshot().items.map((c) => c.id).slice(-2)).toEqual([25, 26]);
    expect(review.getSnapshot().nextAfterId).toBeNull();
    await review.loadMore();
    expect(f.bridge.pendingChanges.mock.calls).toEqual([[], [25]]);
  });

  it('keeps the server version with the review token, then refreshes the list, the status and the data', async () => {
    const { f, reload, review } = setup();
    await review.load();
    await review.review(change(3));
    expect(review.getSnapshot().open).toMatchObject({ item: { id: 3 }, stale: false, review: { token: 'tok-3', server: { state: 'present' } } });
    f.pages.set(undefined, { items: [change(4)], nextAfterId: null });
    await review.resolve('server', { name: 'ignored' });
    expect(f.bridge.resolveChange).toHaveBeenCalledWith('tok-3', 'server', undefined);
    expect(review.getSnapshot()).toMatchObject({ open: null, notice: 'Kept the server version of Contact 3.' });
    expect(review.getSnapshot().items.map((c) => c.id)).toEqual([4]);
    expect(f.bridge.status).toHaveBeenCalled();
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it('retries with edits; with the server reachable the change is replayed at once', async () => {
    const { f, review } = setup(true);
    await review.load();
    await review.review(change(3));
    await review.resolve('retry', { name: 'Ann D' });
    expect(f.bridge.resolveChange).toHaveBeenCalledWith('tok-3', 'retry', { name: 'Ann D' });
    expect(review.getSnapshot().notice).toBe('Contact 3 will be synced again.');
    await vi.waitFor(() => expect(f.bridge.replay).toHaveBeenCalledTimes(1));
    await review.review(change(3));
    await review.resolve('retry', {});
    expect(f.bridge.resolveChange).toHaveBeenLastCalledWith('tok-3', 'retry', undefined);
  });

  it('shows a refused resolve in the shell words and asks for a fresh review; the spent token is not sent again', async () => {
    const { f, review } = setup();
    await review.load();
    await review.review(change(3));
    f.resolveRefusals.push(new BridgeRefusal(MOVED, 'invalid'));
    await review.resolve('server');
    expect(review.getSnapshot()).toMatchObject({ error: MOVED, open: { stale: true }, busy: false });
    await review.resolve('server');
    expect(f.bridge.resolveChange).toHaveBeenCalledTimes(1);
    await review.review(change(3));
    expect(review.getSnapshot()).toMatchObject({ error: null, open: { stale: false } });
  });

  it('shows a refused review (a sync in progress) and goes back to the list', async () => {
    const { f, review } = setup();
    await review.load();
    f.reviews.set(5, new BridgeRefusal(SYNCING, 'invalid'));
    await review.review(change(5));
    expect(review.getSnapshot()).toMatchObject({ error: SYNCING, open: { review: null, stale: true } });
    await review.resolve('retry');
    expect(f.bridge.resolveChange).not.toHaveBeenCalled();
    review.back();
    expect(review.getSnapshot()).toMatchObject({ open: null, error: null });
  });

  it('a failed list read says so', async () => {
    const { f, review } = setup();
    f.bridge.pendingChanges.mockRejectedValueOnce(new BridgeRefusal('Sign in to the Relay server to sync offline changes.', 'unavailable'));
    await review.load();
    expect(review.getSnapshot()).toMatchObject({ loading: false, error: 'Sign in to the Relay server to sync offline changes.' });
  });
});
