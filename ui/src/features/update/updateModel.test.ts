// The Update dialog's view logic and the bridge answers it reads: snapshots and restart answers
// field by field, every failure code in plain words, a sentence per state, the actions each
// state allows (one step at a time), the progress with bytes, the header label and refusals.
import { describe, expect, it } from 'vitest';
import { UPDATE_FAILURE_CODES, restartInfo, updateSnapshot, type UpdateSnapshot } from '../../transport/desktop';
import {
  FAILURE_TEXT,
  RESTART_UNMANAGED,
  restartHandedOffText,
  allowedActions,
  describeUpdate,
  downloadProgress,
  headerLabel,
  isRunning,
  refusalText,
  restartText,
} from './updateModel';

const MiB = 1024 * 1024;
const snap = (patch: Partial<UpdateSnapshot> = {}): UpdateSnapshot => ({
  phase: 'available',
  currentVersion: '0.1.0',
  latestVersion: '0.2.0',
  installable: true,
  downloadedBytes: 0,
  totalBytes: 40 * MiB,
  failureCode: null,
  ...patch,
});

describe('bridge answers', () => {
  it('reads a snapshot field by field', () => {
    expect(updateSnapshot({ phase: 'downloading', currentVersion: '0.1.0', latestVersion: '0.2.0', installable: true, downloadedBytes: 5, totalBytes: 10, failureCode: null, extra: 'x' }))
      .toEqual({ phase: 'downloading', currentVersion: '0.1.0', latestVersion: '0.2.0', installable: true, downloadedBytes: 5, totalBytes: 10, failureCode: null });
  });

  it('drops what it does not know: an odd phase, code, version or byte count', () => {
    expect(updateSnapshot({ phase: 'exploded', currentVersion: 'v0.1', latestVersion: '<b>1.0.0</b>', installable: 'yes', downloadedBytes: -3, totalBytes: 'lots', failureCode: 'pwned' }))
      .toEqual({ phase: 'idle', currentVersion: '', latestVersion: null, installable: false, downloadedBytes: 0, totalBytes: null, failureCode: null });
    expect(updateSnapshot(null).phase).toBe('idle');
    expect(updateSnapshot({ phase: 'downloading', downloadedBytes: 99, totalBytes: 10 }).downloadedBytes).toBe(10);
  });

  it('reads a restart answer; only lowercase hex of the right length is kept', () => {
    expect(restartInfo({ version: '0.2.0', commit: 'ab'.repeat(20), executableSha256: '07'.repeat(32), handedOff: false, executable: '/home/x' }))
      .toEqual({ version: '0.2.0', commit: 'ab'.repeat(20), executableSha256: '07'.repeat(32), handedOff: false });
    expect(restartInfo({ version: '0.2', commit: 'AB'.repeat(20), executableSha256: '07', handedOff: 'true' }))
      .toEqual({ version: '', commit: '', executableSha256: '', handedOff: false });
  });
});

describe('failure codes in words', () => {
  it('has a plain sentence for every code (no code leaks through)', () => {
    for (const code of UPDATE_FAILURE_CODES) {
      expect(FAILURE_TEXT[code], code).toMatch(/^[A-Z].*\.$/);
      expect(FAILURE_TEXT[code]).not.toContain('-');
      expect(describeUpdate(snap({ phase: 'error', failureCode: code }), false)).toEqual({ text: FAILURE_TEXT[code], error: true });
    }
  });

  it('names why a newer release is only advisory', () => {
    const advisory = describeUpdate(snap({ installable: false, failureCode: 'release-not-immutable' }), true);
    expect(advisory.text).toBe(`Relay v0.2.0 is available. ${FAILURE_TEXT['release-not-immutable']}`);
    expect(advisory.error).toBe(false);
  });
});

describe('state sentences', () => {
  it('tells "newest" apart from "not checked yet"', () => {
    const idle = snap({ phase: 'idle', latestVersion: null, totalBytes: null });
    expect(describeUpdate(idle, true).text).toBe('Relay v0.1.0 is the newest version.');
    expect(describeUpdate(idle, false).text).toBe('No newer version is known yet.');
    expect(describeUpdate(null, false).text).toBe('Asking the updater…');
  });

  it('says what each step needs next', () => {
    expect(describeUpdate(snap(), false).text).toContain('Relay v0.2.0 is available.');
    expect(describeUpdate(snap({ phase: 'downloading' }), false).text).toBe('Downloading Relay v0.2.0…');
    expect(describeUpdate(snap({ phase: 'downloaded' }), false).text).toContain('Prepare it');
    expect(describeUpdate(snap({ phase: 'preparing' }), false).text).toBe('Preparing Relay v0.2.0…');
    expect(describeUpdate(snap({ phase: 'prepared' }), false).text).toBe('Relay v0.2.0 is prepared. Restart Relay to use it.');
  });
});

describe('actions', () => {
  const on = (s: UpdateSnapshot | null, busy: Parameters<typeof allowedActions>[1] = null) =>
    Object.entries(allowedActions(s, busy)).filter(([, v]) => v).map(([k]) => k);

  it('allows exactly the next step of each state, never two steps at once', () => {
    expect(on(snap({ phase: 'idle', latestVersion: null }))).toEqual(['check']);
    expect(on(snap())).toEqual(['check', 'download']);
    expect(on(snap({ phase: 'downloading' }))).toEqual(['check', 'cancel']);
    expect(on(snap({ phase: 'downloaded' }))).toEqual(['check', 'prepare']);
    expect(on(snap({ phase: 'preparing' }))).toEqual([]);
    expect(on(snap({ phase: 'prepared' }))).toEqual(['check', 'restart']);
  });

  it('offers Download again only after a retryable failure of an installable release', () => {
    for (const code of ['download-failed', 'verification-failed', 'prepare-failed', 'cancelled'] as const) {
      expect(on(snap({ phase: 'error', failureCode: code })), code).toEqual(['check', 'download']);
    }
    expect(on(snap({ phase: 'error', failureCode: 'signature-invalid' }))).toEqual(['check']);
    expect(on(snap({ phase: 'error', failureCode: 'release-changed' }))).toEqual(['check']);
    expect(on(snap({ installable: false, failureCode: 'release-quarantined' }))).toEqual(['check']);
  });

  it('allows nothing while a command runs or before the state is known', () => {
    expect(on(snap(), 'download')).toEqual([]);
    expect(on(null)).toEqual([]);
  });
});

describe('progress, header and refusals', () => {
  it('shows the bytes and a whole percent while downloading, nothing otherwise', () => {
    expect(downloadProgress(snap({ phase: 'downloading', downloadedBytes: 10 * MiB }))).toEqual({ percent: 25, text: '10.0 MiB of 40.0 MiB' });
    expect(downloadProgress(snap({ phase: 'downloading', downloadedBytes: 40 * MiB }))?.percent).toBe(100);
    expect(downloadProgress(snap({ phase: 'downloading', downloadedBytes: 2048, totalBytes: null }))).toEqual({ percent: 0, text: '2.0 KiB received' });
    expect(downloadProgress(snap({ phase: 'downloaded', downloadedBytes: 40 * MiB }))).toBeNull();
    expect(isRunning(snap({ phase: 'downloading' })) && isRunning(snap({ phase: 'preparing' }))).toBe(true);
    expect(isRunning(snap()) || isRunning(null)).toBe(false);
  });

  it('labels the header action with the newer version only', () => {
    expect(headerLabel(snap())).toBe('Update · v0.2.0');
    expect(headerLabel(snap({ installable: false }))).toBe('Update · v0.2.0');
    expect(headerLabel(snap({ phase: 'idle', latestVersion: null }))).toBeNull();
    expect(headerLabel(null)).toBeNull();
  });

  it('puts refusals in words', () => {
    expect(refusalText({ code: 'rateLimited', retryAfterSeconds: 42, message: 'Too many requests' })).toBe('Relay checked for updates moments ago. Try again in 42 s.');
    expect(refusalText({ code: 'invalid', message: 'No download is in progress.' })).toBe('No download is in progress.');
    expect(refusalText(undefined)).toBe('The updater did not answer.');
  });

  it('says Restart verified the program and whether the launcher took it', () => {
    const info = { version: '0.2.0', commit: '0123456789abcdef'.repeat(2) + '01234567', executableSha256: '07'.repeat(32), handedOff: false };
    const verified = 'Relay v0.2.0 (commit 0123456789ab) is prepared and its checksum verified again.';
    expect(restartText(info)).toBe(`${verified} ${RESTART_UNMANAGED}`);
    expect(RESTART_UNMANAGED).toBe(
      'This installation is not managed by the Relay launcher, so it cannot restart into the new version; install it from the releases page.',
    );
    expect(restartText({ ...info, handedOff: true })).toBe(
      `${verified} Relay restarts into v0.2.0 now; the launcher keeps the previous version if the new one does not start.`,
    );
    expect(restartHandedOffText('1.4.0')).toContain('restarts into v1.4.0 now');
  });
});
