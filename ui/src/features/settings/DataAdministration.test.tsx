// Markup and helper tests for Settings → Data administration: restore point age and verified
// backup in words, the failure text and "Retry backup" after a failure, the progress bar with
// bytes and entries while an operation runs, and the archive list marking the restore point.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { BackupStatus } from '../../transport/desktop';
import { BackupPanel, formatAge, percentDone } from './DataAdministration';

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
      busy={busy} message={null} onBackup={() => undefined} onVerify={() => undefined} />,
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
    expect(html.match(/disabled=""/g)).toHaveLength(2);
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
