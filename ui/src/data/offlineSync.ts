// Desktop client mode: the UI's side of the shell's offline write queue. It owns the last
// `offline_status` (polled every STATUS_POLL_MS, about every second while a replay runs, and
// right after each offline write), the offline writes themselves (`offline_mutate`), the replay
// on the way back online (single-flight: a second call joins the running one; the collections
// are reloaded when it ends, whatever the outcome) and resolving reviewed changes. DataStores
// builds one when the transport carries the shell's OfflineBridge; no React here.
import { FeedStore } from '../lib/feedStore';
import type { OfflineBridge, OfflineMutation, OfflineMutationResult, OfflineStatus, ReplayReport, Resolution } from '../transport/types';

export const STATUS_POLL_MS = 5_000;
export const REPLAY_POLL_MS = 1_000;

export interface OfflineSyncState {
  /** The shell's last answer to `offline_status`; null until the first one. */
  status: OfflineStatus | null;
  /** Why the last replay this window asked for was refused (e.g. not signed in), or null. */
  replayError: string | null;
}

export interface OfflineSyncHooks {
  /** Reload every collection on screen (from the server, or the cache while offline). */
  reload: () => void;
  /** Whether the server is reachable now. */
  reachable: () => boolean;
}

const INITIAL: OfflineSyncState = { status: null, replayError: null };

export class OfflineSync extends FeedStore<OfflineSyncState> {
  private started = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private replaying: Promise<ReplayReport | null> | null = null;

  constructor(
    readonly bridge: OfflineBridge,
    private readonly hooks: OfflineSyncHooks,
  ) {
    super(INITIAL);
  }

  /** From sign-in (idempotent): asks the status now and keeps polling it. */
  start(): void {
    if (this.started) return;
    this.started = true;
    void this.refresh();
  }

  stop(): void {
    this.started = false;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.dropLoads();
  }

  /** Asks `offline_status` now, then polls again: about every second while a replay runs, else every 5 s. */
  async refresh(): Promise<OfflineStatus | null> {
    const current = this.beginLoad();
    try {
      const status = await this.bridge.status();
      // Most polls change nothing: the status bar re-renders only when something did.
      if (current() && JSON.stringify(status) !== JSON.stringify(this.state.status)) this.set({ status });
      return status;
    } catch (err) {
      console.error('relay offline: offline_status failed', err);
      return null;
    } finally {
      if (current()) this.schedule();
    }
  }

  private schedule(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (!this.started) return;
    const fast = this.replaying !== null || this.state.status?.replaying === true;
    this.timer = setTimeout(() => void this.refresh(), fast ? REPLAY_POLL_MS : STATUS_POLL_MS);
  }

  /** Queues one write in the shell; the status (pending count) follows at once. */
  async mutate(mutation: OfflineMutation): Promise<OfflineMutationResult> {
    const result = await this.bridge.mutate(mutation);
    const status = this.state.status;
    if (status) this.set({ status: { ...status, pendingCount: result.pendingCount } });
    void this.refresh();
    return result;
  }

  /**
   * Replays the queue; a call while a replay runs joins it. When it ends (synced, stopped or
   * refused) the status is asked again and the collections are reloaded. Resolves with the
   * report, or null when the shell refused (the reason is in `replayError`).
   */
  replay(): Promise<ReplayReport | null> {
    if (this.replaying) return this.replaying;
    this.set({ replayError: null });
    this.replaying = Promise.resolve()
      .then(() => this.bridge.replay())
      .then(
        (report) => report,
        (err: unknown) => {
          this.set({ replayError: err instanceof Error && err.message ? err.message : 'The offline changes could not be synced.' });
          return null;
        },
      )
      .then(async (report) => {
        this.replaying = null;
        await this.refresh();
        this.hooks.reload();
        return report;
      });
    void this.refresh(); // polls about every second from here on
    return this.replaying;
  }

  /**
   * The connection is up (sign-in, or back after an outage): replays what is queued, which
   * reloads afterwards; with nothing queued, reloads only when `reconnect` asks for it.
   */
  async connected(reconnect: boolean): Promise<void> {
    const status = await this.refresh();
    if (status && status.pendingCount > 0) await this.replay();
    else if (reconnect) this.hooks.reload();
  }

  /**
   * Resolves a reviewed change with its single-use token. A change queued again ('retry') is
   * replayed at once when the server is reachable; otherwise the status and collections follow.
   */
  async resolve(token: string, resolution: Resolution, edits?: Record<string, unknown>): Promise<void> {
    await this.bridge.resolveChange(token, resolution, edits);
    if (resolution === 'retry' && this.hooks.reachable()) {
      void this.replay();
      return;
    }
    void this.refresh();
    this.hooks.reload();
  }
}
