// The review screen's state, without React: the queued changes page by page (`pending_changes`
// list, 25 a page, "Load more" while there is a next page), one change opened for review (its
// local copy beside the server's, with a single-use token), and resolving it (keep the server
// version, or retry with this PC's change and optional edits) through OfflineSync, which then
// refreshes the status and the collections. A refused review or resolve keeps the shell's text
// (e.g. a sync in progress, or a change that moved on) and asks for a fresh review.
import { FeedStore } from '../../lib/feedStore';
import type { ChangeReview, OfflineBridge, PendingChange, Resolution } from '../../transport/types';
import { changeName } from './offline';

export interface OpenReview {
  item: PendingChange;
  /** null while it loads, or when the review was refused. */
  review: ChangeReview | null;
  /** The token was spent or refused: only "Review again" can go on. */
  stale: boolean;
}

export interface PendingReviewState {
  items: PendingChange[];
  nextAfterId: number | null;
  loading: boolean;
  /** The shell's refusal or failure, in its words. */
  error: string | null;
  open: OpenReview | null;
  busy: boolean;
  /** What the last resolve did, for the list's live region. */
  notice: string | null;
}

/** What the review needs from the offline queue (OfflineSync). */
export interface ReviewQueue {
  readonly bridge: Pick<OfflineBridge, 'pendingChanges' | 'reviewChange'>;
  resolve(token: string, resolution: Resolution, edits?: Record<string, unknown>): Promise<void>;
}

const INITIAL: PendingReviewState = { items: [], nextAfterId: null, loading: true, error: null, open: null, busy: false, notice: null };

const messageOf = (err: unknown, fallback: string) => (err instanceof Error && err.message ? err.message : fallback);

export class PendingReview extends FeedStore<PendingReviewState> {
  constructor(private readonly queue: ReviewQueue) {
    super(INITIAL);
  }

  /** The first page again (on open and after a resolve). */
  async load(): Promise<void> {
    const current = this.beginLoad();
    this.set({ loading: true });
    try {
      const page = await this.queue.bridge.pendingChanges();
      if (current()) this.set({ items: page.items, nextAfterId: page.nextAfterId, loading: false, error: null });
    } catch (err) {
      if (current()) this.set({ loading: false, error: messageOf(err, 'The pending changes could not be read.') });
    }
  }

  /** The next page, appended. */
  async loadMore(): Promise<void> {
    const after = this.state.nextAfterId;
    if (after === null || this.state.loading) return;
    const current = this.beginLoad();
    this.set({ loading: true });
    try {
      const page = await this.queue.bridge.pendingChanges(after);
      if (current()) this.set({ items: [...this.state.items, ...page.items], nextAfterId: page.nextAfterId, loading: false, error: null });
    } catch (err) {
      if (current()) this.set({ loading: false, error: messageOf(err, 'The pending changes could not be read.') });
    }
  }

  /** Opens one change beside the server's copy (a fresh token each time). */
  async review(item: PendingChange): Promise<void> {
    this.set({ open: { item, review: null, stale: false }, busy: true, error: null, notice: null });
    try {
      const review = await this.queue.bridge.reviewChange(item.id);
      if (this.state.open?.item === item) this.set({ open: { item, review, stale: false }, busy: false });
    } catch (err) {
      if (this.state.open?.item === item) this.set({ open: { item, review: null, stale: true }, busy: false, error: messageOf(err, 'This change could not be reviewed.') });
    }
  }

  back(): void {
    this.set({ open: null, error: null, busy: false });
  }

  /** Resolves the open change with its token; then back to a refreshed list. */
  async resolve(resolution: Resolution, edits?: Record<string, unknown>): Promise<void> {
    const open = this.state.open;
    if (!open?.review || open.stale || this.state.busy) return;
    this.set({ busy: true, error: null });
    try {
      await this.queue.resolve(open.review.token, resolution, resolution === 'retry' && edits && Object.keys(edits).length > 0 ? edits : undefined);
    } catch (err) {
      this.set({ busy: false, error: messageOf(err, 'This change could not be resolved.'), open: { ...open, stale: true } });
      return;
    }
    this.set({
      busy: false,
      open: null,
      notice: resolution === 'server' ? `Kept the server version of ${changeName(open.item)}.` : `${changeName(open.item)} will be synced again.`,
    });
    await this.load();
  }
}
