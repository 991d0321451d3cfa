// Markup and helper tests for Settings → Data administration: restore point age and verified
// backup in words, the failure text and "Retry backup" after a failure, the progress bar with
// bytes and entries while an operation runs, the archive list marking the restore point with a
// Restore button per archive, the restore confirmation, the last restore's outcome, and waiting
// for a restarted server's restore report.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { BackupStatus } from '../../transport/desktop';
import { BackupPanel, RestoreConfirm, describeRestore, formatAge, isRestoreConfirmed, percentDone, waitForRestore } from './DataAdministration';

const NAME = 'backup_2026-12-03_10-00-00_abcdefgh12.zip';
const point = { name: NAME, completedAt: '2026-12-03T10:00:01.000Z', fingerprint: '1:2:3:4' };

const healthy: BackupStatus = {
  health: { lastSuccess: point, lastVerified: point, failures: 0, retentionAllowed: true, restorePointAgeMs: 3 * 3_600_000 + 12 * 60_000, busy: false },
  operation: null,
  queued: 0,
};

const render = (status: BackupStatus | null, busy = false) =>
  renderToStaticMarkup(
    <BackupPanel status={status} archives={[{ name: NAME, kind: 'regular', createdMs: 0, size: 9779, verifiedRestorePoint: true }]}
      busy={busy} message={null} onBackup={() => undefined} onVerify={() => undefined} onRestore={() => undefined} />,
  );

describe('BackupPanel', () => {
  it('shows the restore point age, the verified backup and that retention may run', () => {
    const html = render(healthy);
    expect(html).toMatch(/data-testid="backup-age">3 h 12 min</);
    expect(html).toContain(`${NAME} (2026-12-03T10:00:01.000Z)`);
    expect(html).toContain('✓ Allowed');
    expect(html).toContain('Backup now');
    expect(html).not.toContain('backup-progress');
    expect(html).toContain('✓ Verified restore point');
  });

  it('offers a retry and shows the fixed failure text after a failure', () => {
    const failed: BackupStatus = {
      ...healthy,
      health: { ...healthy.health, lastFailure: 'Not enough disk space. Free space outside Relay history and backups, then retry.', retentionAllowed: false },
    };
    const html = render(failed);
    expect(html).toContain('Retry backup');
    expect(html).toMatch(/data-testid="backup-failure">Not enough disk space/);
    expect(html).toContain('Paused until a backup is verified');
  });

  it('shows a progress bar with bytes and entries while an operation runs, buttons disabled', () => {
    const running: BackupStatus = {
      ...healthy,
      health: { ...healthy.health, busy: true },
      operation: { kind: 'create', phase: 'verifying', archive: NAME, bytesDone: 512 * 1024, bytesTotal: 1024 * 1024, entriesDone: 1, entriesTotal: 2 },
    };
    const html = render(running, true);
    expect(html).toMatch(/<progress max="100" value="50" aria-label="Backup progress">/);
    expect(html).toContain('Verifying in a disposable restore — 512 KiB of 1.0 MiB, 1 of 2 entries');
    expect(html.match(/disabled=""/g)).toHaveLength(3);
  });

  it('offers a restore per archive and shows the last restore outcome', () => {
    expect(render(healthy)).toContain(`aria-label="Restore ${NAME}"`);
    const rolledBack: BackupStatus = {
      ...healthy,
      lastRestore: { restored: NAME, safety: 'pre_restore_x.zip', result: { state: 'rolledBack', reason: 'integrity' }, finishedMs: 0 },
    };
    expect(render(rolledBack)).toMatch(/data-testid="backup-last-restore">The restored data failed to open \(integrity\); the previous data was put back/);
    const installing: BackupStatus = { ...healthy, lastRestore: { ...rolledBack.lastRestore!, result: { state: 'installed' } } };
    expect(render(installing)).not.toContain('backup-last-restore');
  });

  it('names what a restore replaces and keeps the button disabled until RESTORE is typed', () => {
    const html = renderToStaticMarkup(<RestoreConfirm name={NAME} onConfirm={() => undefined} onCancel={() => undefined} />);
    expect(html).toContain(NAME);
    expect(html).toContain('safety backup');
    expect(html).toMatch(/data-testid="restore-confirm-go" disabled=""/);
    expect(isRestoreConfirmed('restore')).toBe(false);
    expect(isRestoreConfirmed('')).toBe(false);
    expect(isRestoreConfirmed(' RESTORE ')).toBe(true);
  });
});

describe('waiting for a restore', () => {
  const base = healthy;
  const finished = (safety: string, state: 'installed' | 'serving') =>
    ({ ...base, lastRestore: { restored: NAME, safety, result: { state }, finishedMs: 1 } }) as BackupStatus;

  it('rides out the restart and reports only the final outcome of this restore', async () => {
    const replies: (BackupStatus | Error)[] = [
      new Error('the server is restarting'),
      finished('pre_restore_old.zip', 'serving'),
      finished('pre_restore_new.zip', 'installed'),
      finished('pre_restore_new.zip', 'serving'),
    ];
    const seen: BackupStatus[] = [];
    const bridge = {
      backupStatus: async () => {
        const next = replies.shift()!;
        if (next instanceof Error) throw next;
        return next;
      },
    };
    const outcome = await waitForRestore(bridge, 'pre_restore_new.zip', (s) => seen.push(s), async () => undefined);
    expect(outcome).toEqual({ text: `Restored ${NAME}; the server serves it. Safety backup: pre_restore_new.zip.`, error: false });
    expect(seen).toHaveLength(3);
    expect(describeRestore(null)).toBeNull();
  });

  it('gives up at the deadline with an error', async () => {
    const bridge = { backupStatus: async () => finished('pre_restore_new.zip', 'installed') };
    const outcome = await waitForRestore(bridge, 'pre_restore_new.zip', () => undefined, async () => undefined, 2_000);
    expect(outcome.error).toBe(true);
  });
});

describe('backup helpers', () => {
  it('formats ages and percentages defensively', () => {
    expect(formatAge(null)).toBe('—');
    expect(formatAge(-5)).toBe('—');
    expect(formatAge(59 * 60_000)).toBe('59 min');
    expect(formatAge(3 * 86_400_000)).toBe('3 days');
    expect(percentDone(null)).toBe(0);
    expect(percentDone({ kind: 'verify', phase: 'verifying', archive: null, bytesDone: 0, bytesTotal: 0, entriesDone: 3, entriesTotal: 4 })).toBe(75);
    expect(percentDone({ kind: 'verify', phase: 'verifying', archive: null, bytesDone: 9, bytesTotal: 3, entriesDone: 0, entriesTotal: 0 })).toBe(100);
  });
});
