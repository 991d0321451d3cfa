// Desktop client mode: the offline queue in the status bar. A replay's progress bar (done of
// total) while it runs; the pending-changes badge ("3 changes waiting to sync · 1 needs review")
// that opens the review dialog; why the last replay was refused or stopped; and the shell's
// storage notice. Nothing at all in other modes or before the first status answer.
import { useOfflineSync } from '../../data/store';
import type { OfflineSyncState } from '../../data/offlineSync';
import { pendingText, progressText, stoppedText } from './offline';

export function QueueStatusView({ state, onOpen }: { state: OfflineSyncState; onOpen: () => void }) {
  const s = state.status;
  if (!s) return null;
  const pending = pendingText(s);
  const stopped = stoppedText(s.lastReplay);
  const problem = state.replayError ?? s.lastError;
  return (
    <span className="queue-status" data-testid="offline-queue">
      {s.replaying &&
        (s.progress ? (
          <span className="queue-progress" data-testid="offline-progress">
            <progress max={Math.max(s.progress[1], 1)} value={s.progress[0]} aria-label="Offline changes synced" />
            {progressText(s.progress)}
          </span>
        ) : (
          <span data-testid="offline-progress">Syncing offline changes…</span>
        ))}
      {pending && (
        <button
          type="button"
          className={s.issueCount > 0 ? 'queue-badge queue-badge-review' : 'queue-badge'}
          data-testid="offline-pending"
          aria-haspopup="dialog"
          title="Review the changes waiting to sync"
          onClick={onOpen}
        >
          {pending}
        </button>
      )}
      {pending && problem && (
        <span className="queue-notice" data-testid="offline-error">
          {problem}
        </span>
      )}
      {stopped && (
        <span className="queue-notice" data-testid="offline-stopped">
          {stopped}
        </span>
      )}
      {s.storageNotice && (
        <span className="queue-notice" data-testid="offline-storage">
          {s.storageNotice}
        </span>
      )}
    </span>
  );
}

/** The status bar's queue part; `onOpen` opens the review dialog (the Shell owns it). */
export function QueueStatus({ onOpen }: { onOpen: () => void }) {
  const offline = useOfflineSync();
  return offline ? <QueueStatusView state={offline.state} onOpen={onOpen} /> : null;
}
