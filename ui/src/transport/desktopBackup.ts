// The server-mode backup commands' answers (app/desktop/src/backup_cmd.rs, `domain::backup::status`)
// as the Data administration panel reads them. Types only; `DesktopBridge` (desktop.ts) calls
// the commands.

/** One running backup operation (domain::backup::status::OperationStatus). */
export interface BackupOperation {
  kind: 'create' | 'verify' | 'restore';
  phase: 'queued' | 'writing' | 'verifying' | 'pruning' | 'installing';
  archive: string | null;
  bytesDone: number;
  bytesTotal: number;
  entriesDone: number;
  entriesTotal: number;
}

/** A restore point in the backup health file. */
export interface RestorePoint {
  name: string;
  completedAt: string;
  fingerprint: string;
}

/** `backup_status` (domain::backup::status::BackupStatus; health flattened as in the file). */
export interface BackupStatus {
  health: {
    lastSuccess?: RestorePoint;
    lastVerified?: RestorePoint;
    lastVerification?: { name: string; completedAt: string; outcome: 'success' | 'failed' };
    lastFailure?: string;
    retryDue?: string;
    failures: number;
    retentionAllowed: boolean;
    restorePointAgeMs: number | null;
    busy: boolean;
  };
  operation: BackupOperation | null;
  queued: number;
  /** The last restore this server process carried out (domain::backup::status::FinishedRestore). */
  lastRestore?: FinishedRestore | null;
}

/** How a restore ended: `installed` until the restarted server has served a read. */
export type RestoreResult =
  | { state: 'installed' }
  | { state: 'serving' }
  | { state: 'rolledBack'; reason: string }
  | { state: 'failed'; reason: string };

export interface FinishedRestore {
  restored: string;
  /** The pre-restore safety backup: the restore's identity. */
  safety: string;
  result: RestoreResult;
  finishedMs: number;
}

/** `backup_restore`: the restore is verified and staged; the server restarts onto it. */
export interface RestoreStaged {
  restored: { name: string; tables: number };
  safety: { name: string; size: number };
}

/** One archive (`backup_list`). */
export interface BackupArchive {
  name: string;
  kind: 'regular' | 'preRestore';
  createdMs: number;
  size: number;
  verifiedRestorePoint: boolean;
}
