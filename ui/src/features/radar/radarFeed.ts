// The app-level Radar feed (one per signed-in shell): from sign-in on, it polls GET
// /api/relay/radar every RADAR_POLL_MS (the server has no realtime for Radar) and on reconnect,
// keeps the last snapshot in memory (the sidebar indicator and the Radar tab read it), turns a
// worsening colour into a warning/critical toast on every tab (rules in ./radar), and runs the
// manual refresh (POST, whose answer is the snapshot after the read, then a GET; spinner held
// >= RADAR_MIN_SPIN_MS; 429 → "try again in N s"). No React here (`useRadarFeed.tsx` binds it).
import type { RadarSnapshot, Transport } from '../../transport/types';
import { isTransportError } from '../../transport/types';
import { FeedStore } from '../../lib/feedStore';
import { NoticeTimer, runManualRefresh, type Notice } from '../../lib/manualRefresh';
import { DEFAULT_RETRY_SECS } from '../status/status';
import { EMPTY_TOAST_MEMORY, RADAR_MIN_SPIN_MS, RADAR_POLL_MS, normalizeRadar, radarToast, refreshLimitedText, type RadarToast, type ToastMemory } from './radar';

export type { NoticeTone } from '../../lib/manualRefresh';

export interface RadarFeedState {
  /** The last snapshot received (kept when a later load fails). */
  data: RadarSnapshot | null;
  /** True until the first answer, success or failure. */
  loading: boolean;
  /** Why the latest load from the Relay server failed, or null (the server's own read error is data.error). */
  error: string | null;
  /** A manual refresh is running (the button's spinner). */
  refreshing: boolean;
  /** What the last manual refresh said (rate limit, failure). */
  notice: Notice | null;
}

/** Load failures in the operator's words. */
export function radarLoadErrorText(err: unknown): string {
  if (isTransportError(err)) {
    if (err.kind === 'not-found') return 'This Relay server does not provide the Radar yet.';
    if (err.kind === 'network') return 'Cannot reach the Relay server.';
    if (err.kind === 'rejected') return 'Your session has ended. Sign in again.';
    return err.message || 'The server could not return the Radar.';
  }
  return err instanceof Error && err.message ? err.message : 'Could not load the Radar.';
}

const INITIAL: RadarFeedState = { data: null, loading: true, error: null, refreshing: false, notice: null };

export class RadarFeed extends FeedStore<RadarFeedState> {
  private started = false;
  private unsubs: (() => void)[] = [];
  private poll: ReturnType<typeof setInterval> | null = null;
  private readonly noticeTimer = new NoticeTimer(() => this.set({ notice: null }));
  private memory: ToastMemory = EMPTY_TOAST_MEMORY;

  constructor(
    private readonly transport: Transport,
    private readonly toast: (t: RadarToast) => void,
    private readonly now: () => number = Date.now,
  ) {
    super(INITIAL);
  }

  /** From sign-in (idempotent): load now, poll, and catch up after a reconnect. */
  start(): void {
    if (this.started) return;
    this.started = true;
    let first = true;
    let wasConnected = false;
    this.unsubs.push(
      this.transport.onStateChange((s) => {
        const connected = s === 'connected';
        if (connected && !wasConnected && !first) void this.load();
        wasConnected = connected;
        first = false;
      }),
    );
    this.poll = setInterval(() => void this.load(), RADAR_POLL_MS);
    void this.load();
  }

  stop(): void {
    this.started = false;
    for (const u of this.unsubs.splice(0)) u();
    if (this.poll !== null) clearInterval(this.poll);
    this.poll = null;
    this.noticeTimer.clear();
    this.dropLoads(); // answers still in flight are dropped
  }

  /** A snapshot arrived (poll or refresh): keep it and apply the toast rule. */
  private accept(raw: unknown): void {
    const data = normalizeRadar(raw);
    const { memory, toast } = radarToast(this.memory, data);
    this.memory = memory;
    this.set({ data, loading: false, error: null });
    if (toast) this.toast(toast);
  }

  /** One GET /api/relay/radar; a newer load or a stop makes an older answer moot. */
  async load(): Promise<void> {
    const current = this.beginLoad();
    try {
      const raw = await this.transport.radar();
      if (!current()) return;
      this.accept(raw);
    } catch (err) {
      if (!current()) return;
      this.set({ loading: false, error: radarLoadErrorText(err) });
    }
  }

  /** POST /api/relay/radar/refresh (the snapshot after the read), then a GET at once. */
  async refresh(): Promise<void> {
    if (this.state.refreshing) return;
    this.set({ refreshing: true, notice: null });
    const { notice, noticeMs } = await runManualRefresh({
      attempt: async () => {
        const raw = await this.transport.refreshRadar();
        this.dropLoads(); // a poll that started before the read is older than this answer
        if (this.started) this.accept(raw);
        await this.load();
        return null;
      },
      minSpinMs: RADAR_MIN_SPIN_MS,
      now: this.now,
      limitedText: refreshLimitedText,
      defaultRetrySecs: DEFAULT_RETRY_SECS,
      errorText: radarLoadErrorText,
    });
    this.set({ refreshing: false, notice });
    this.noticeTimer.arm(notice, noticeMs);
  }
}
