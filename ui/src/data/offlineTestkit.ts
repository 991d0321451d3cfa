// Test-only: a fake of the desktop shell's offline commands (OfflineBridge) that keeps its cache
// and queue in memory, records every call, answers mutations with optimistic records and lets a
// test hold a replay open (to see progress and single-flight) or refuse it.
import { vi } from 'vitest';
import { BridgeRefusal } from '../transport/desktop';
import type { CachedCollection, ChangeReview, OfflineBridge, OfflineMutation, OfflineStatus, PendingChange, ReplayReport } from '../transport/types';

export const idle = (extra: Partial<OfflineStatus> = {}): OfflineStatus => ({
  pendingCount: 0,
  issueCount: 0,
  replaying: false,
  progress: null,
  lastError: null,
  lastReplay: null,
  storageNotice: null,
  ...extra,
});

export function fakeOffline() {
  const cache = new Map<string, CachedCollection<unknown>>();
  let status = idle();
  let replayGate: { resolve: (r: ReplayReport) => void; reject: (e: unknown) => void } | null = null;
  let holdReplays = false;
  let seq = 0;
  const pages = new Map<number | undefined, { items: PendingChange[]; nextAfterId: number | null }>();
  const reviews = new Map<number, ChangeReview | BridgeRefusal>();
  const resolveRefusals: BridgeRefusal[] = [];
  const cacheReads = vi.fn(async (collection: string) => cache.get(collection) ?? null);
  const bridge = {
    status: vi.fn(async () => status),
    cachePut: vi.fn(async (collection: string, records: readonly unknown[]) => {
      cache.set(collection, { records: [...records], fetchedAtMs: 1764770000000 });
    }),
    // vi.fn cannot carry the generic signature: the spy is `cacheReads`.
    cacheRead: ((collection: string) => cacheReads(collection)) as OfflineBridge['cacheRead'],
    mutate: vi.fn(async (m: OfflineMutation) => {
      if (m.collection === 'users') throw new BridgeRefusal('Collection is not available offline', 'invalid');
      status = { ...status, pendingCount: status.pendingCount + 1 };
      const recordId = m.recordId ?? `local${String(++seq).padStart(10, '0')}`;
      const record = m.action === 'delete' ? null : { id: recordId, created: '2026-12-03 10:00:00.000Z', updated: '2026-12-03 10:00:00.000Z', ...m.data };
      return { mutationId: `m${seq}`, changeId: seq, recordId, record, pendingCount: status.pendingCount };
    }),
    replay: vi.fn(
      () =>
        new Promise<ReplayReport>((resolve, reject) => {
          const done: ReplayReport = { total: status.pendingCount, synced: status.pendingCount, conflicts: 0, failed: 0, stopped: null };
          if (!holdReplays) {
            status = idle({ lastReplay: done });
            resolve(done);
            return;
          }
          status = { ...status, replaying: true, progress: [0, status.pendingCount] };
          replayGate = { resolve, reject };
        }),
    ),
    pendingChanges: vi.fn(async (afterId?: number) => pages.get(afterId) ?? { items: [], nextAfterId: null }),
    reviewChange: vi.fn(async (id: number) => {
      const r = reviews.get(id);
      if (!r) throw new BridgeRefusal('This change or connection has changed. Review it again before resolving.', 'invalid');
      if (r instanceof BridgeRefusal) throw r;
      return r;
    }),
    resolveChange: vi.fn(async (_token: string, _resolution: string, _edits?: Record<string, unknown>) => {
      const refusal = resolveRefusals.shift();
      if (refusal) throw refusal;
    }),
  } satisfies OfflineBridge;
  return {
    bridge,
    cacheReads,
    cache,
    pages,
    reviews,
    resolveRefusals,
    setStatus: (s: Partial<OfflineStatus>) => (status = { ...status, ...s }),
    /** Replays stay open until `finishReplay` / `refuseReplay`. */
    holdReplays: () => (holdReplays = true),
    finishReplay: (report: ReplayReport) => {
      status = idle({ lastReplay: report });
      replayGate?.resolve(report);
      replayGate = null;
    },
    refuseReplay: (message: string) => {
      status = { ...status, replaying: false, progress: null };
      replayGate?.reject(new BridgeRefusal(message, 'unavailable'));
      replayGate = null;
    },
  };
}
