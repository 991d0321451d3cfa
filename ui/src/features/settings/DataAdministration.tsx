// Settings → Data administration (desktop server mode only): backup health (restore point age,
// last verified backup, last failure, whether retention may run), "Backup now" ("Retry" after a
// failure) and "Verify" of the latest backup, the archive list, and a progress bar (bytes and
// entries of the running phase) while a backup or verification runs. Everything goes through
// the typed desktop bridge to the in-process backup actor; browsers never see this panel.
import { useCallback, useEffect, useState } from 'react';
import { DesktopBridge, type BackupArchive, type BackupStatus } from '../../transport/desktop';
import { formatBytes } from './systemHealth';

/** How often the panel refreshes the status while an operation runs. */
export const BACKUP_POLL_MS = 500;

const PHASES = { queued: 'Waiting', writing: 'Writing backup', verifying: 'Verifying in a disposable restore', pruning: 'Applying retention' } as const;

/** "3 h 12 min" for a restore point's age; "—" without one. */
export function formatAge(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return '—';
  const min = Math.floor(ms / 60_000);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return `${h} h ${min % 60} min`;
  return `${Math.floor(h / 24)} days`;
}

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
}

export function BackupPanel({ status, archives, busy, message, onBackup, onVerify }: BackupPanelProps) {
  const health = status?.health;
  const latest = health?.lastSuccess?.name;
  const op = status?.operation ?? null;
  return (
    <div className="panel card" data-testid="data-administration">
      <h3>Data administration</h3>
      <dl className="kv">
        <dt>Restore point age</dt>
        <dd data-testid="backup-age">{formatAge(health?.restorePointAgeMs)}</dd>
        <dt>Last verified</dt>
        <dd data-testid="backup-last-verified">{health?.lastVerified ? `${health.lastVerified.name} (${health.lastVerified.completedAt})` : 'None yet'}</dd>
        <dt>Retention</dt>
        <dd data-testid="backup-retention">{health?.retentionAllowed ? '✓ Allowed (a fresh verified backup exists)' : '! Paused until a backup is verified'}</dd>
        {health?.lastFailure && (<><dt>Last failure</dt><dd className="error-text" data-testid="backup-failure">{health.lastFailure}</dd></>)}
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
            {op && op.entriesTotal > 0 && `, ${op.entriesDone} of ${op.entriesTotal} entries`}
          </span>
        </div>
      )}
      {message && <p className={message.error ? 'error-text' : 'muted'} role={message.error ? 'alert' : 'status'} data-testid="backup-message">{message.text}</p>}
      {archives.length > 0 && (
        <div className="table-scroll">
          <table className="table" data-testid="backup-archives">
            <caption className="visually-hidden">Backups in the data directory, newest first</caption>
            <thead><tr><th scope="col">Backup</th><th scope="col">Size</th><th scope="col">Status</th></tr></thead>
            <tbody>
              {archives.map((a) => (
                <tr key={a.name}>
                  <td><code>{a.name}</code></td>
                  <td>{formatBytes(a.size)}</td>
                  <td>{a.verifiedRestorePoint ? '✓ Verified restore point' : a.kind === 'preRestore' ? 'Pre-restore safety copy' : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

/** The panel wired to the desktop bridge; renders nothing outside a server-mode desktop. */
export function DataAdministration({ w = globalThis }: { w?: unknown }) {
  const [bridge] = useState(() => DesktopBridge.of(w));
  const [serverMode, setServerMode] = useState(false);
  const [status, setStatus] = useState<BackupStatus | null>(null);
  const [archives, setArchives] = useState<BackupArchive[]>([]);
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  const [running, setRunning] = useState(false);

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

  async function run(action: () => Promise<string>) {
    setRunning(true);
    setMessage(null);
    try {
      setMessage({ text: await action(), error: false });
    } catch (e) {
      setMessage({ text: e instanceof Error ? e.message : String(e), error: true });
    } finally {
      setRunning(false);
      await refresh();
    }
  }

  return (
    <BackupPanel
      status={status}
      archives={archives}
      busy={busy}
      message={message}
      onBackup={() => void run(async () => { const b = await bridge.backupCreate(); return `Backup ${b.name} written and verified.`; })}
      onVerify={(name) => void run(async () => { const v = await bridge.backupVerify(name); return `Backup ${v.name} verified (${v.tables} tables read).`; })}
    />
  );
}
