// The desktop updater's answers as the renderer keeps them (app/desktop/src/update_cmd.rs):
// `update_status`/`update_check`/`update_download`/`update_cancel`/`update_prepare` answer the
// state (`domain::updater::UpdateSnapshot`), `update_restart` the verified prepared executable
// (`RestartInfo`). Each is read field by field: an unknown phase or failure code, a negative or
// non-numeric byte count or a malformed version never reaches the view. The commands take no
// argument: the renderer names no release, URL, path or asset.

/** Where the updater is (`domain::updater::UpdatePhase`). */
export type UpdatePhase = 'idle' | 'available' | 'downloading' | 'downloaded' | 'preparing' | 'prepared' | 'error';

/** Why an update is only advisory or did not complete (`domain::updater::UpdateFailure`). */
export type UpdateFailureCode =
  | 'unsupported'
  | 'release-not-immutable'
  | 'release-not-installable'
  | 'release-changed'
  | 'release-quarantined'
  | 'download-failed'
  | 'verification-failed'
  | 'signature-invalid'
  | 'prepare-failed'
  | 'cancelled';

export const UPDATE_PHASES: readonly UpdatePhase[] = ['idle', 'available', 'downloading', 'downloaded', 'preparing', 'prepared', 'error'];

export const UPDATE_FAILURE_CODES: readonly UpdateFailureCode[] = [
  'unsupported',
  'release-not-immutable',
  'release-not-installable',
  'release-changed',
  'release-quarantined',
  'download-failed',
  'verification-failed',
  'signature-invalid',
  'prepare-failed',
  'cancelled',
];

export interface UpdateSnapshot {
  phase: UpdatePhase;
  /** This build's version, `MAJOR.MINOR.PATCH`. */
  currentVersion: string;
  /** The newer release on offer (absent when none is newer). */
  latestVersion: string | null;
  /** Whether the offer may be downloaded (else it is advisory, with `failureCode` saying why). */
  installable: boolean;
  downloadedBytes: number;
  totalBytes: number | null;
  failureCode: UpdateFailureCode | null;
}

/** What `update_restart` verified; `handedOff` stays false until the recovery launcher exists. */
export interface RestartInfo {
  version: string;
  commit: string;
  executableSha256: string;
  handedOff: boolean;
}

const VERSION = /^(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})$/;

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const bytes = (v: unknown): number => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : 0);
const version = (v: unknown): string | null => (typeof v === 'string' && VERSION.test(v) ? v : null);
const hex = (v: unknown, length: number): string => (typeof v === 'string' && new RegExp(`^[0-9a-f]{${length}}$`).test(v) ? v : '');

/** `update_status` and friends, field by field (an unusable answer reads as idle). */
export function updateSnapshot(raw: unknown): UpdateSnapshot {
  const r = isObject(raw) ? raw : {};
  const phase = UPDATE_PHASES.includes(r.phase as UpdatePhase) ? (r.phase as UpdatePhase) : 'idle';
  const failure = UPDATE_FAILURE_CODES.includes(r.failureCode as UpdateFailureCode) ? (r.failureCode as UpdateFailureCode) : null;
  const total = r.totalBytes === null || r.totalBytes === undefined ? null : bytes(r.totalBytes) || null;
  const done = bytes(r.downloadedBytes);
  return {
    phase,
    currentVersion: version(r.currentVersion) ?? '',
    latestVersion: version(r.latestVersion),
    installable: r.installable === true,
    downloadedBytes: total !== null ? Math.min(done, total) : done,
    totalBytes: total,
    failureCode: failure,
  };
}

/** `update_restart`'s answer, field by field. */
export function restartInfo(raw: unknown): RestartInfo {
  const r = isObject(raw) ? raw : {};
  return { version: version(r.version) ?? '', commit: hex(r.commit, 40), executableSha256: hex(r.executableSha256, 64), handedOff: r.handedOff === true };
}
