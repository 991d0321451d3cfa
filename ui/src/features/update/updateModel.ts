// The Update dialog's view logic (pure): the updater's failure codes in plain words, one
// sentence for each state, which of the separate actions (Check, Download, Cancel, Prepare,
// Restart) the state allows, the download progress with bytes, the header action's label, and
// a bridge refusal in words. It decides nothing the shell does not: the buttons only mirror the
// updater's state machine, which refuses any step out of order anyway.
import type { RestartInfo, UpdateFailureCode, UpdateSnapshot } from '../../transport/desktop';
import { formatBytes } from '../settings/systemHealth';

/** How often the state is asked for while a download or preparation runs. */
export const UPDATE_FAST_POLL_MS = 500;
/** How often it is asked for otherwise (the updater checks on its own every 15 minutes). */
export const UPDATE_SLOW_POLL_MS = 60_000;

/** What Restart says when this installation is not started through the Relay launcher. */
export const RESTART_UNMANAGED =
  'This installation is not managed by the Relay launcher, so it cannot restart into the new version; install it from the releases page.';

/** What Restart says once the launcher has the new version: the app exits into it moments later. */
export function restartHandedOffText(version: string): string {
  return `Relay restarts into v${version} now; the launcher keeps the previous version if the new one does not start.`;
}

/** Each failure code in plain words: what happened and what the operator can do. */
export const FAILURE_TEXT: Record<UpdateFailureCode, string> = {
  unsupported: 'This installation cannot update itself. Install the new version from the Relay releases page.',
  'release-not-immutable': 'GitHub does not mark this release as immutable, so Relay will not install it.',
  'release-not-installable': 'This release is missing files Relay needs, or they are not in the expected form, so Relay will not install it.',
  'release-changed': 'The release changed on GitHub after the check. Check for updates again.',
  'release-quarantined': 'This release failed its trial start on this PC before, so Relay will not install it again.',
  'download-failed': 'The download did not complete and its files were deleted. Try the download again.',
  'verification-failed': 'The downloaded file did not match its published checksums and was deleted. Try the download again.',
  'signature-invalid': "The download does not carry a valid signature from Relay's publisher, so it was deleted.",
  'prepare-failed': 'The downloaded update could not be unpacked and checked, so it was deleted. Download it again.',
  cancelled: 'The download was cancelled and its files were deleted.',
};

/** The failure codes after which Download may be pressed again without a new check. */
const RETRYABLE: readonly UpdateFailureCode[] = ['download-failed', 'verification-failed', 'prepare-failed', 'cancelled'];

/** Which commands are running from this window (one at a time). */
export type UpdateAction = 'check' | 'download' | 'cancel' | 'prepare' | 'restart';

/** The sentence describing the state; `error` marks a failure to show as an alert. */
export function describeUpdate(s: UpdateSnapshot | null, checked: boolean): { text: string; error: boolean } {
  if (!s) return { text: 'Asking the updater…', error: false };
  const next = s.latestVersion ? `Relay v${s.latestVersion}` : 'The update';
  switch (s.phase) {
    case 'idle':
      return { text: checked ? `Relay v${s.currentVersion} is the newest version.` : 'No newer version is known yet.', error: false };
    case 'available':
      if (!s.installable) {
        const why = s.failureCode ? FAILURE_TEXT[s.failureCode] : 'Relay cannot install it here.';
        return { text: `${next} is available. ${why}`, error: false };
      }
      return { text: `${next} is available. Download it when convenient; nothing changes until you restart.`, error: false };
    case 'downloading':
      return { text: `Downloading ${next}…`, error: false };
    case 'downloaded':
      return { text: `${next} is downloaded and verified. Prepare it to unpack and check the new program.`, error: false };
    case 'preparing':
      return { text: `Preparing ${next}…`, error: false };
    case 'prepared':
      return { text: `${next} is prepared. Restart Relay to use it.`, error: false };
    case 'error':
      return { text: s.failureCode ? FAILURE_TEXT[s.failureCode] : 'The update did not complete.', error: true };
  }
}

/** The actions the state allows (`busy`: a command from this window is still running). */
export function allowedActions(s: UpdateSnapshot | null, busy: UpdateAction | null): Record<UpdateAction, boolean> {
  const idle = busy === null && s !== null;
  const phase = s?.phase;
  const retryable = phase === 'error' && s?.failureCode != null && RETRYABLE.includes(s.failureCode);
  return {
    check: idle && phase !== 'preparing',
    download: idle && s.installable && s.latestVersion !== null && (phase === 'available' || retryable),
    cancel: idle && phase === 'downloading',
    prepare: idle && phase === 'downloaded',
    restart: idle && phase === 'prepared',
  };
}

/** The download progress bar: percent for aria-valuenow and the bytes in words; null when no download runs. */
export function downloadProgress(s: UpdateSnapshot | null): { percent: number; text: string } | null {
  if (!s || s.phase !== 'downloading') return null;
  const total = s.totalBytes;
  if (total === null || total <= 0) return { percent: 0, text: `${formatBytes(s.downloadedBytes)} received` };
  const percent = Math.min(100, Math.floor((s.downloadedBytes / total) * 100));
  return { percent, text: `${formatBytes(s.downloadedBytes)} of ${formatBytes(total)}` };
}

/** The header action's label when a newer release exists ("Update · v1.4.0"), else null. */
export function headerLabel(s: UpdateSnapshot | null): string | null {
  return s?.latestVersion ? `Update · v${s.latestVersion}` : null;
}

/** Whether the state changes on its own soon (a download or preparation runs): poll fast. */
export function isRunning(s: UpdateSnapshot | null): boolean {
  return s?.phase === 'downloading' || s?.phase === 'preparing';
}

/** A refusal of an update command in words (`rateLimited` carries the seconds to wait). */
export function refusalText(e: unknown): string {
  const r = e as { code?: unknown; retryAfterSeconds?: unknown; message?: unknown } | null;
  if (r?.code === 'rateLimited' && typeof r.retryAfterSeconds === 'number') {
    return `Relay checked for updates moments ago. Try again in ${r.retryAfterSeconds} s.`;
  }
  return typeof r?.message === 'string' && r.message !== '' ? r.message : 'The updater did not answer.';
}

/** What Restart shows: the verified program, then either the hand-off to the launcher or why there is none. */
export function restartText(info: RestartInfo): string {
  const commit = info.commit ? ` (commit ${info.commit.slice(0, 12)})` : '';
  const next = info.handedOff ? restartHandedOffText(info.version) : RESTART_UNMANAGED;
  return `Relay v${info.version}${commit} is prepared and its checksum verified again. ${next}`;
}
