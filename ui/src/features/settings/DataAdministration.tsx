// Settings → Data administration (desktop server mode only): backup health (restore point age,
// last verified backup, last failure, whether retention may run), "Backup now" ("Retry" after a
// failure) and "Verify" of the latest backup, the archive list with "Restore…" per archive
// (a confirmation dialog that names what is replaced and requires typing RESTORE), the last
// restore's outcome, and a progress bar (bytes and entries of the running phase) while a backup,
// verification or restore runs. A restore restarts the server: the panel keeps asking for the
// status through the restart until the restarted server reports the outcome. Everything goes
// through the typed desktop bridge to the in-process backup actor; browsers never see this panel.
import { useCallback, useEffect, useState } from 'react';
import { Modal } from '../../components/Modal';
import { plural } from '../../lib/text';
import { DesktopBridge, type BackupArchive, type BackupStatus, type FinishedRestore } from '../../transport/desktop';
import { formatAgeMs, formatBytes } from './systemHealth';

/** How often the panel refreshes the status while an operation runs. */
export const BACKUP_POLL_MS = 500;

const PHASES = {
  queued: 'Waiting',
  writing: 'Writing backup',
  verifying: 'Verifying in a disposable restore',
  pruning: 'Applying retention',
  installing: 'Restarting the server on the restored data',
} as const;

/** How long the panel waits for a restarted server's restore report, and how often it asks. */
export const RESTORE_REPORT_DEADLINE_MS = 300_000;

/** The word the operator types to confirm a restore. */
export const RESTORE_CONFIRM_WORD = 'RESTORE';

/** An operator-facing sentence for a restore's outcome; `null` while it is not final. */
export function describeRestore(r: FinishedRestore | null | undefined): { text: string; error: boolean } | null {
  if (!r) return null;
  switch (r.result.state) {
    case 'serving':
      return { text: `Restored ${r.restored}; the server serves it. Safety backup: ${r.safety}.`, error: false };
    case 'rolledBack':
      return { text: `The restored data failed to open (${r.result.reason}); the previous data was put back and is served.`, error: true };
    case 'failed':
      return { text: `The restore failed: ${r.result.reason}`, error: true };
    default:
      return null;
  }
}

/** "3 h 12 min" for a restore point's age; "—" without one. */
export const formatAge = formatAgeMs;

/** Percent done of the running phase (bytes when known, else entries), 0–100. */
export function percentDone(op: BackupStatus['operation']): number {
  if (!op) return 0;
  const [done, total] = op.bytesTotal > 0 ? [op.bytesDone, op.bytesTotal] : [op.entriesDone, op.entriesTotal];
  return total > 0 ? Math.min(100, Math.round((done / total) * 100)) : 0;
}

/** What the panel shows (pure rendering; the markup test renders it directly). */
export interface BackupPanelProps {
  status: BackupStatus | null;
  archives: BackupArchive[];
  busy: boolean;
  message: { text: string; error: boolean } | null;
  onBackup(): void;
  onVerify(name: string): void;
  /** Asks to restore `name` (the caller confirms first). */
  onRestore(name: string): void;
}

export function BackupPanel({ status, archives, busy, message, onBackup, onVerify, onRestore }: BackupPanelProps) {
  const health = status?.health;
  const latest = health?.lastSuccess?.name;
  const op = status?.operation ?? null;
  return (
    <div className="panel card" data-testid="data-administration">
      <h2>Data administration</h2>
      <dl className="kv">
        <dt>Restore point age</dt>
        <dd data-testid="backup-age">{formatAge(health?.restorePointAgeMs)}</dd>
        <dt>Last verified</dt>
        <dd data-testid="backup-last-verified">{health?.lastVerified ? `${health.lastVerified.name} (${health.lastVerified.completedAt})` : 'None yet'}</dd>
        <dt>Retention</dt>
        <dd data-testid="backup-retention">{health?.retentionAllowed ? '✓ Allowed (a fresh verified backup exists)' : '! Paused until a backup is verified'}</dd>
        {health?.lastFailure && (<><dt>Last failure</dt><dd className="error-text" data-testid="backup-failure">{health.lastFailure}</dd></>)}
        {describeRestore(status?.lastRestore) && (
          <><dt>Last restore</dt><dd className={describeRestore(status?.lastRestore)?.error ? 'error-text' : undefined} data-testid="backup-last-restore">{describeRestore(status?.lastRestore)?.text}</dd></>
        )}
      </dl>
      <div className="row-wrap">
        <button type="button" className="button" data-testid="backup-now" disabled={busy} onClick={onBackup}>
          {health?.lastFailure ? 'Retry backup' : 'Backup now'}
        </button>
        <button type="button" className="button button-ghost" data-testid="backup-verify" disabled={busy || !latest}
          onClick={() => latest && onVerify(latest)}>
          Verify latest
        </button>
      </div>
      {busy && (
        <div data-testid="backup-progress" role="status">
          <progress max={100} value={percentDone(op)} aria-label="Backup progress" />
          <span className="muted small">
            {' '}{op ? PHASES[op.phase] : 'Starting'}
            {op && op.bytesTotal > 0 && ` — ${formatBytes(op.bytesDone)} of ${formatBytes(op.bytesTotal)}`}
            {op && op.entriesTotal > 0 && `, ${op.entriesDone} of ${plural(op.entriesTotal, 'entry', 'entries')}`}
          </span>
        </div>
      )}
      {message && <p className={message.error ? 'error-text' : 'muted'} role={message.error ? 'alert' : 'status'} data-testid="backup-message">{message.text}</p>}
      {archives.length > 0 && (
        <div className="table-scroll">
          <table className="table" data-testid="backup-archives">
            <caption className="visually-hidden">Backups in the data directory, newest first</caption>
            <thead><tr><th scope="col">Backup</th><th scope="col">Size</th><th scope="col">Status</th><th scope="col"><span className="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {archives.map((a) => (
                <tr key={a.name}>
                  <td><code>{a.name}</code></td>
                  <td>{formatBytes(a.size)}</td>
                  <td>{a.verifiedRestorePoint ? '✓ Verified restore point' : a.kind === 'preRestore' ? 'Pre-restore safety copy' : ''}</td>
                  <td>
                    <button type="button" className="button button-ghost small" data-testid="backup-restore" disabled={busy}
                      aria-label={`Restore ${a.name}`} onClick={() => onRestore(a.name)}>
                      Restore…
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

/** Whether the typed text confirms a restore (the exact word, surrounding spaces ignored). */
export function isRestoreConfirmed(typed: string): boolean {
  return typed.trim() === RESTORE_CONFIRM_WORD;
}

/** The restore confirmation: what is replaced, what is kept, and the typed confirmation word. */
export function RestoreConfirm({ name, onConfirm, onCancel }: { name: string; onConfirm(): void; onCancel(): void }) {
  const [typed, setTyped] = useState('');
  const confirmed = isRestoreConfirmed(typed);
  return (
    <Modal title="Restore this backup?" onClose={onCancel} role="alertdialog" testId="restore-confirm">
      <p>
        Restoring <code>{name}</code> replaces all current Relay data on this server with the backup&apos;s.
        A safety backup of the current data is written and verified first, and the backup is verified
        before anything changes.
      </p>
      <p>The server stops for a moment and restarts on the restored data; connected clients reconnect.</p>
      <label className="field">
        <span>Type {RESTORE_CONFIRM_WORD} to confirm</span>
        <input data-testid="restore-confirm-word" value={typed} autoComplete="off" onChange={(e) => setTyped(e.target.value)} />
      </label>
      <div className="row-wrap">
        <button type="button" className="button button-danger" data-testid="restore-confirm-go" disabled={!confirmed} onClick={onConfirm}>
          Restore
        </button>
        <button type="button" className="button button-ghost" onClick={onCancel}>Cancel</button>
      </div>
    </Modal>
  );
}

/** Asks for the status until the restore identified by `safety` has a final outcome (the server is
 * unreachable for a moment while it restarts; those failures are expected and retried). */
export async function waitForRestore(
  bridge: Pick<DesktopBridge, 'backupStatus'>,
  safety: string,
  onStatus: (s: BackupStatus) => void,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  deadlineMs = RESTORE_REPORT_DEADLINE_MS,
): Promise<{ text: string; error: boolean }> {
  for (let waited = 0; waited < deadlineMs; waited += BACKUP_POLL_MS) {
    await sleep(BACKUP_POLL_MS);
    const status = await bridge.backupStatus().catch(() => null);
    if (!status) continue;
    onStatus(status);
    const r = status.lastRestore;
    const outcome = r && r.safety === safety ? describeRestore(r) : null;
    if (outcome) return outcome;
  }
  return { text: 'The server did not report the restore in time; check System health and the logs.', error: true };
}

/** The panel wired to the desktop bridge; renders nothing outside a server-mode desktop. */
export function DataAdministration({ w = globalThis }: { w?: unknown }) {
  const [bridge] = useState(() => DesktopBridge.of(w));
  const [serverMode, setServerMode] = useState(false);
  const [status, setStatus] = useState<BackupStatus | null>(null);
  const [archives, setArchives] = useState<BackupArchive[]>([]);
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  const [running, setRunning] = useState(false);
  const [confirming, setConfirming] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    if (!bridge) return;
    try {
      const [s, list] = await Promise.all([bridge.backupStatus(), bridge.backupList()]);
      setStatus(s);
      setArchives(list);
    } catch (e) {
      setMessage({ text: e instanceof Error ? e.message : String(e), error: true });
    }
  }, [bridge]);

  useEffect(() => {
    if (!bridge) return;
    void bridge.info().then((info) => {
      if (info?.mode === 'server') {
        setServerMode(true);
        void refresh();
      }
    }).catch(() => undefined);
  }, [bridge, refresh]);
  const busy = running || Boolean(status?.health.busy);
  useEffect(() => {
    if (!busy || !bridge || !serverMode) return;
    const timer = setInterval(() => { void bridge.backupStatus().then(setStatus).catch(() => undefined); }, BACKUP_POLL_MS);
    return () => clearInterval(timer);
  }, [busy, bridge, serverMode]);

  if (!bridge || !serverMode) return null;

  async function run(action: () => Promise<string | { text: string; error: boolean }>) {
    setRunning(true);
    setMessage(null);
    try {
      const done = await action();
      setMessage(typeof done === 'string' ? { text: done, error: false } : done);
    } catch (e) {
      setMessage({ text: e instanceof Error ? e.message : String(e), error: true });
    } finally {
      setRunning(false);
      await refresh();
    }
  }

  const restore = (name: string) => void run(async () => {
    const staged = await bridge.backupRestore(name);
    setMessage({ text: `Backup verified; safety backup ${staged.safety.name} written. The server is restarting on the restored data…`, error: false });
    return waitForRestore(bridge, staged.safety.name, setStatus);
  });

  return (
    <>
      <BackupPanel
        status={status}
        archives={archives}
        busy={busy}
        message={message}
        onBackup={() => void run(async () => { const b = await bridge.backupCreate(); return `Backup ${b.name} written and verified.`; })}
        onVerify={(name) => void run(async () => { const v = await bridge.backupVerify(name); return `Backup ${v.name} verified (${plural(v.tables, 'table')} read).`; })}
        onRestore={setConfirming}
      />
      {confirming && (
        <RestoreConfirm
          name={confirming}
          onCancel={() => setConfirming(null)}
          onConfirm={() => { const name = confirming; setConfirming(null); restore(name); }}
        />
      )}
    </>
  );
}
