// The app-level service-status feed (one per signed-in shell): from sign-in on, it turns
// `cloud_status_notices` creates into batched toasts on every tab (never a toast on load or
// reconnect). Once the Status view has been opened (`activate`), it also keeps the last
// snapshot of GET /api/relay/status in memory (stale-while-revalidate across tab switches) and
// re-fetches it on any `cloud_status` realtime event (debounced), on reconnect and on a 60 s
// safety poll; a client that never opens the tab never polls. It runs the manual refresh
// (spinner held >= 500 ms, 429 → "try again in N s"). No React here (`useStatusFeed.tsx` binds
// it) and no rule: those are in ./status.
import type { ServiceStatus, Transport } from '../../transport/types';
import { isTransportError } from '../../transport/types';
import { FeedStore } from '../../lib/feedStore';
import { NoticeTimer, runManualRefresh, type Notice } from '../../lib/manualRefresh';
import {
  CLOUD_STATUS,
  CLOUD_STATUS_NOTICES,
  MIN_SPIN_MS,
  NoticeBatcher,
  REFETCH_DEBOUNCE_MS,
  REFRESHING_RECHECK_MS,
  STATUS_POLL_MS,
  normalizeStatus,
  refreshLimitedText,
  DEFAULT_RETRY_SECS,
} from './status';

export type { NoticeTone } from '../../lib/manualRefresh';

export interface StatusFeedState {
  /** The last snapshot received (kept when a later load fails). */
  data: ServiceStatus | null;
  /** True until the first answer, success or failure. */
  loading: boolean;
  /** Why the latest load failed, or null. */
  error: string | null;
  /** A manual refresh is running (the button's spinner). */
  refreshing: boolean;
  /** What the last manual refresh said (rate limit, already running, failure). */
  notice: Notice | null;
}

export type StatusToast = { kind: 'error' | 'warning'; message: string };

/** Load failures in the operator's words. */
export function loadErrorText(err: unknown): string {
  if (isTransportError(err)) {
    if (err.kind === 'not-found') return 'This Relay server does not provide service status yet.';
    if (err.kind === 'network') return 'Cannot reach the Relay server.';
    if (err.kind === 'rejected') return 'Your session has ended. Sign in again.';
    return err.message || 'The server could not return service status.';
  }
  return err instanceof Error && err.message ? err.message : 'Could not load service status.';
}

const INITIAL: StatusFeedState = { data: null, loading: true, error: null, refreshing: false, notice: null };

type Timer = ReturnType<typeof setTimeout>;

export class StatusFeed extends FeedStore<StatusFeedState> {
  private readonly batcher: NoticeBatcher;
  private started = false;
  /** The Status view asked for the snapshot: load, follow `cloud_status`, poll. */
  private active = false;
  /** Bumped by every start/stop, so a subscription that resolves late (StrictMode's
   * start → stop → start) is released instead of kept twice. */
  private generation = 0;
  private unsubs: (() => void)[] = [];
  private debounce: Timer | null = null;
  private recheck: Timer | null = null;
  private poll: ReturnType<typeof setInterval> | null = null;
  private readonly noticeTimer = new NoticeTimer(() => this.set({ notice: null }));

  constructor(
    private readonly transport: Transport,
    toast: (t: StatusToast) => void,
    private readonly now: () => number = Date.now,
  ) {
    super(INITIAL);
    this.batcher = new NoticeBatcher(toast);
  }

  get snapshot(): StatusFeedState {
    return this.state;
  }

  /** From sign-in: notice toasts. The snapshot machinery waits for `activate`. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.generation++;
    this.listen(CLOUD_STATUS_NOTICES, (e) => this.batcher.offer(e.action, e.record));
    if (this.active) this.follow();
  }

  /** The Status view is showing (idempotent): load now, then keep the snapshot current. */
  activate(): void {
    if (this.active) return;
    this.active = true;
    if (this.started) this.follow();
  }

  private follow(): void {
    this.listen(CLOUD_STATUS, () => this.scheduleLoad());
    let first = true;
    let wasConnected = false;
    this.unsubs.push(
      this.transport.onStateChange((s) => {
        const connected = s === 'connected';
        // Back after a loss: catch up on what changed (a snapshot, never a toast).
        if (connected && !wasConnected && !first) this.scheduleLoad();
        wasConnected = connected;
        first = false;
      }),
    );
    const offReset = this.transport.onClientReset?.(() => this.scheduleLoad());
    if (offReset) this.unsubs.push(offReset);
    this.poll = setInterval(() => void this.load(), STATUS_POLL_MS);
    void this.load();
  }

  private listen(collection: string, cb: (e: { action: string; record: unknown }) => void): void {
    const generation = this.generation;
    void this.transport
      .subscribe(collection, cb)
      .then((u) => {
        if (this.started && generation === this.generation) this.unsubs.push(u);
        else u();
      })
      .catch(() => {});
  }

  stop(): void {
    this.started = false;
    this.generation++;
    for (const u of this.unsubs.splice(0)) u();
    for (const t of [this.debounce, this.recheck]) if (t !== null) clearTimeout(t);
    this.debounce = this.recheck = null;
    this.noticeTimer.clear();
    if (this.poll !== null) clearInterval(this.poll);
    this.poll = null;
    this.batcher.dispose();
    this.dropLoads(); // answers still in flight are dropped
  }

  /** Many realtime events in a burst → one GET. */
  scheduleLoad(): void {
    if (this.debounce !== null) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      this.debounce = null;
      void this.load();
    }, REFETCH_DEBOUNCE_MS);
  }

  /** One GET /api/relay/status; a newer load or a stop makes an older answer moot. */
  async load(): Promise<void> {
    const current = this.beginLoad();
    try {
      const data = normalizeStatus(await this.transport.serviceStatus());
      if (!current()) return;
      this.set({ data, loading: false, error: null });
      if (this.recheck !== null) clearTimeout(this.recheck);
      this.recheck = null;
      // The server is polling right now: look again soon rather than at the next minute.
      if (data.refreshing && this.started) {
        this.recheck = setTimeout(() => {
          this.recheck = null;
          void this.load();
        }, REFRESHING_RECHECK_MS);
      }
    } catch (err) {
      if (!current()) return;
      this.set({ loading: false, error: loadErrorText(err) });
    }
  }

  /** POST /api/relay/status/refresh, then a fresh GET; the spinner shows at least MIN_SPIN_MS. */
  async refresh(): Promise<void> {
    if (this.state.refreshing) return;
    this.set({ refreshing: true, notice: null });
    const { notice, noticeMs } = await runManualRefresh({
      attempt: async () => {
        const r = await this.transport.refreshServiceStatus();
        const notice: Notice | null = !r.started && r.inFlight ? { text: 'A refresh is already running.', tone: 'info' } : null;
        await this.load();
        return notice;
      },
      minSpinMs: MIN_SPIN_MS,
      now: this.now,
      limitedText: refreshLimitedText,
      defaultRetrySecs: DEFAULT_RETRY_SECS,
      errorText: loadErrorText,
    });
    this.set({ refreshing: false, notice });
    this.noticeTimer.arm(notice, noticeMs);
  }
}
