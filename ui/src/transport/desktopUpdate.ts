// The desktop updater's answers as the renderer keeps them (app/desktop/src/update_cmd.rs):
// `update_status`/`update_check`/`update_download`/`update_cancel`/`update_prepare` answer the
// state (`domain::updater::UpdateSnapshot`), `update_restart` the verified prepared executable
// (`RestartInfo`), `update_release_notes` the release notes of Settings → About
// (`ReleaseNotesInfo`). Each is read field by field: an unknown phase or failure code, a negative or
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

/** What `update_restart` verified; `handedOff`: the launcher took it and the app exits into it (false when unmanaged). */
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

/** One release's notes (`update_release_notes`): `body` is Markdown text, rendered as text nodes. */
export interface ReleaseNote {
  version: string;
  title: string;
  publishedAt: string | null;
  body: string;
  /** This is the running version. */
  current: boolean;
}

/** `update_release_notes`' answer: newest first, and when they were fetched (ms since the epoch). */
export interface ReleaseNotes {
  releases: ReleaseNote[];
  fetchedAtMs: number | null;
}

/** Most releases kept, longest title (characters) and largest body (UTF-8 bytes, marker included). */
export const MAX_RELEASE_NOTES = 20;
export const MAX_RELEASE_TITLE_CHARS = 200;
export const MAX_RELEASE_BODY_BYTES = 16 * 1024;
export const TRUNCATED_MARKER = '\n\n…(truncated)';

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
// Control characters other than \n and \t (C0, DEL, C1).
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;
const encoder = new TextEncoder();

function releaseBody(v: unknown): string {
  if (typeof v !== 'string') return '';
  const text = v.replace(/\r\n/g, '\n').replace(CONTROL, '');
  if (encoder.encode(text).length <= MAX_RELEASE_BODY_BYTES) return text;
  const budget = MAX_RELEASE_BODY_BYTES - encoder.encode(TRUNCATED_MARKER).length;
  let out = '';
  let used = 0;
  for (const ch of text) {
    const size = encoder.encode(ch).length;
    if (used + size > budget) break;
    out += ch;
    used += size;
  }
  return out + TRUNCATED_MARKER;
}

function releaseNote(raw: unknown): ReleaseNote | null {
  if (!isObject(raw)) return null;
  const v = version(raw.version);
  if (v === null) return null;
  const title = typeof raw.title === 'string' ? [...raw.title.replace(CONTROL, ' ')].slice(0, MAX_RELEASE_TITLE_CHARS).join('').trim() : '';
  const publishedAt = typeof raw.publishedAt === 'string' && RFC3339.test(raw.publishedAt) ? raw.publishedAt : null;
  return { version: v, title: title || `v${v}`, publishedAt, body: releaseBody(raw.body), current: raw.current === true };
}

/** `update_release_notes`, field by field: unknown fields dropped, a malformed entry skipped,
 * at most 20 releases, bodies bounded (an unusable answer reads as no notes). */
export function releaseNotes(raw: unknown): ReleaseNotes {
  const r = isObject(raw) ? raw : {};
  const list = Array.isArray(r.releases) ? r.releases : [];
  const releases = list.map(releaseNote).filter((n): n is ReleaseNote => n !== null).slice(0, MAX_RELEASE_NOTES);
  const at = r.fetchedAtMs;
  const fetchedAtMs = typeof at === 'number' && Number.isSafeInteger(at) && at >= 0 ? at : null;
  return { releases, fetchedAtMs };
}
