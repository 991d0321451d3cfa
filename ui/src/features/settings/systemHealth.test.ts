// Tests for the System health logic: byte and uptime formatting, state labels that never rely on
// colour, the subsystem order, and the sparkline path and summary.
import { describe, expect, it } from 'vitest';
import type { ActorHealth } from '../../transport/types';
import { BACKUP_STALE_MS, backupLine, formatBytes, formatUptime, healthNotice, overallLine, sparklinePath, sparklineSummary, stateLabel, subsystemRows } from './systemHealth';

describe('formatBytes', () => {
  it('uses binary units with at most one decimal', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(12.34 * 1024 * 1024)).toBe('12.3 MiB');
    expect(formatBytes(250 * 1024 * 1024)).toBe('250 MiB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3.0 GiB');
  });

  it('shows a dash for values that are not sizes', () => {
    expect(formatBytes(-1)).toBe('—');
    expect(formatBytes(Number.NaN)).toBe('—');
  });
});

describe('formatUptime', () => {
  it('grows from seconds to days', () => {
    expect(formatUptime(42)).toBe('42 s');
    expect(formatUptime(600)).toBe('10 min');
    expect(formatUptime(3720)).toBe('1 h 02 min');
    expect(formatUptime(2 * 86_400 + 2 * 3600 + 59)).toBe('2 d 2 h');
    expect(formatUptime(-5)).toBe('—');
  });
});

describe('stateLabel', () => {
  it('gives every state a text and a symbol, not only a tone', () => {
    expect(stateLabel('running')).toEqual({ text: 'Running', symbol: '✓', tone: 'ok' });
    expect(stateLabel('restarting')).toMatchObject({ text: 'Restarting', tone: 'warn' });
    expect(stateLabel('unresponsive')).toEqual({ text: 'Unresponsive', symbol: '!', tone: 'bad' });
  });
});

describe('subsystemRows', () => {
  const a = (state: ActorHealth['state'] = 'running'): ActorHealth => ({
    state, restarts: 0, queueDepth: 0, lastError: null, lastErrorAt: null, lastReportMsAgo: 0, queueHistory: [],
  });

  it('lists the known subsystems first in their order, then the rest by name', () => {
    const rows = subsystemRows({ actors: { zeta: a(), web_sessions: a(), auth: a(), store: a(), alpha: a() } });
    expect(rows.map((r) => r.name)).toEqual(['store', 'auth', 'web_sessions', 'alpha', 'zeta']);
  });
});

describe('sparklinePath', () => {
  it('spreads points over the width with the peak at the top and zero at the bottom', () => {
    expect(sparklinePath([0, 4, 2], 100, 22)).toBe('M0 21 L50 1 L100 11');
  });

  it('keeps a flat zero line on the bottom (the scale never divides by zero)', () => {
    expect(sparklinePath([0, 0], 10, 10)).toBe('M0 9 L10 9');
  });

  it('breaks the line where nothing was reported and keeps lone points visible', () => {
    const d = sparklinePath([1, 1, null, 1, null], 40, 10);
    expect(d).toBe('M0 1 L10 1 M30 1 h3.3');
    expect(sparklinePath([], 40, 10)).toBe('');
    expect(sparklinePath([null, null], 40, 10)).toBe('');
  });

  it('stays inside the box for 30 buckets of any values', () => {
    const values = Array.from({ length: 30 }, (_, i) => (i * 37) % 11);
    const nums = sparklinePath(values, 120, 24).match(/-?\d+(\.\d+)?/g)!.map(Number);
    const xs = nums.filter((_, i) => i % 2 === 0);
    const ys = nums.filter((_, i) => i % 2 === 1);
    expect(Math.min(...xs)).toBe(0);
    expect(Math.max(...xs)).toBe(120);
    expect(Math.min(...ys)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...ys)).toBeLessThanOrEqual(24);
  });
});

describe('sparklineSummary', () => {
  it('says the peak and the latest depth over the window', () => {
    expect(sparklineSummary([null, 3, 8, 1, null], 20)).toBe('Queue depth over the last 2 minutes: peak 8, latest 1');
    expect(sparklineSummary(Array(30).fill(null), 20)).toBe('No reports in the last 10 minutes');
  });
});

describe('backupLine', () => {
  const fine = { restorePointAgeMs: 3 * 3_600_000, lastVerifiedAgeMs: 3 * 3_600_000, lastFailure: null, failures: 0, retentionAllowed: true, busy: false };

  it('shows the restore point age and verification when backups are fine', () => {
    expect(backupLine(fine)).toEqual({ text: '✓ Restore point 3 h 0 min old, verified 3 h 0 min ago', attention: false });
    expect(backupLine(undefined)).toBeNull();
  });

  it('flags a failure, a missing or stale restore point with a symbol', () => {
    expect(backupLine({ ...fine, lastFailure: 'Not enough disk space.', failures: 2 })).toEqual({ text: '! Not enough disk space. (2 failed attempts)', attention: true });
    expect(backupLine({ ...fine, restorePointAgeMs: null })?.text).toBe('! No backup yet');
    const stale = backupLine({ ...fine, restorePointAgeMs: BACKUP_STALE_MS + 1, lastVerifiedAgeMs: null, busy: true });
    expect(stale).toEqual({ text: '! Restore point 26 h 0 min old, not verified; a backup operation is running', attention: true });
  });
});

describe('overall line and status bar notice', () => {
  const a = (state: ActorHealth['state'], reason?: string): ActorHealth => ({
    state, restarts: 0, queueDepth: 0, lastError: null, lastErrorAt: null, lastReportMsAgo: 0, queueHistory: [],
    condition: reason ? { code: state === 'unconfigured' ? 'not_configured' : 'feeds_failing', reason, since: '' } : null,
  });

  it('all running only when every subsystem in use runs', () => {
    expect(overallLine({ status: 'ok', actors: { store: a('running') } })).toEqual({ text: '✓ All subsystems running', attention: false });
    expect(overallLine({ status: 'ok', actors: { store: a('running'), dynatrace: a('unconfigured', 'not configured') } }).text).toBe(
      '✓ All subsystems in use are running; not configured: dynatrace',
    );
  });

  it('degraded and failing subsystems are named, even if an old server said ok', () => {
    const line = overallLine({ status: 'ok', actors: { store: a('running'), status_feeds: a('degraded', 'x'), auth: a('unresponsive') } });
    expect(line).toEqual({ text: '⚠ 1 subsystem degraded: status_feeds; 1 subsystem restarting or unresponsive: auth', attention: true });
    expect(overallLine({ status: 'ok', actors: { store: a('starting') } }).text).toBe('… Starting: store');
    expect(overallLine({ status: 'degraded', actors: {} }).text).toBe('! Some subsystems need attention');
  });

  it('the status bar counts degraded subsystems and carries each reason; nothing when all is well', () => {
    expect(healthNotice({ actors: { store: a('running'), dynatrace: a('unconfigured', 'not configured') } })).toBeNull();
    const two = healthNotice({ actors: { radar: a('degraded', 'Sign-in needed'), status_feeds: a('degraded', '17 of 17 feeds failing') } });
    expect(two).toEqual({ text: '⚠ 2 subsystems degraded', detail: 'radar: Sign-in needed\nstatus_feeds: 17 of 17 feeds failing' });
    expect(healthNotice({ actors: { status_feeds: a('degraded', 'x') } })?.text).toBe('⚠ 1 subsystem degraded');
    expect(healthNotice({ actors: { auth: a('restarting'), status_feeds: a('degraded', 'x') } })?.text).toBe('⚠ 2 subsystems need attention');
  });

  it('not configured is labelled in words without a check mark', () => {
    expect(stateLabel('unconfigured')).toEqual({ text: 'Not configured', symbol: '–', tone: 'off' });
    expect(stateLabel('degraded')).toMatchObject({ text: 'Degraded', symbol: '⚠' });
  });
});
