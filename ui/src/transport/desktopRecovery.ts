// The desktop's recovery answers (app/desktop/src/recovery_cmd.rs): `recovery_status` the
// recovery launcher's retained builds (infra::recovery::RecoveryOverview) with a repair's bytes
// while one runs, `recovery_rollback` the build the app exits into, and `recovery_repair` what a
// repair did. Read field by field: a build id outside the launcher's grammar,
// a malformed version or commit, or an unknown rollback state never reaches the view. The
// renderer names only a build id taken from this list; the shell re-checks it.

/** Whether a rollback to a retained build is possible (`current` marks the running build). */
export type RollbackAvailability = 'current' | 'available' | 'data_epoch_mismatch' | 'marker_unusable';

export interface RetainedBuild {
  build: string;
  /** `MAJOR.MINOR.PATCH`, or '' when the build's record cannot be proved. */
  version: string;
  /** The full 40-hex commit, or ''. */
  commit: string;
  promotedAtMs: number;
  rollback: RollbackAvailability;
}

export interface RecoveryStatus {
  /** This app is a runtime of the recovery launcher (else nothing below is known). */
  managed: boolean;
  current: RetainedBuild | null;
  predecessors: RetainedBuild[];
  candidatePending: boolean;
  rollbackRequested: boolean;
  quarantinedReleases: number;
  /** The repair download in flight. */
  repair: RepairProgress | null;
}

export interface RepairProgress {
  version: string;
  downloadedBytes: number;
  totalBytes: number | null;
}

/** What `recovery_repair` did: `repaired` false when the build's files were intact (nothing downloaded). */
export interface RepairInfo {
  build: string;
  version: string;
  repaired: boolean;
}

/** What `recovery_rollback` asked the launcher for; the app exits into it. */
export interface RollbackInfo {
  build: string;
  version: string;
}

const BUILD_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const VERSION = /^(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})$/;
const COMMIT = /^[0-9a-f]{40}$/;
const AVAILABILITY: readonly RollbackAvailability[] = ['current', 'available', 'data_epoch_mismatch', 'marker_unusable'];
/** Most predecessors the launcher retains. */
export const MAX_RETAINED_PREDECESSORS = 3;

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const count = (v: unknown): number => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : 0);
const text = (v: unknown, pattern: RegExp): string => (typeof v === 'string' && pattern.test(v) ? v : '');

function retainedBuild(raw: unknown): RetainedBuild | null {
  if (!isObject(raw) || typeof raw.build !== 'string' || !BUILD_ID.test(raw.build)) return null;
  const rollback = AVAILABILITY.includes(raw.rollback as RollbackAvailability) ? (raw.rollback as RollbackAvailability) : 'marker_unusable';
  return { build: raw.build, version: text(raw.version, VERSION), commit: text(raw.commit, COMMIT), promotedAtMs: count(raw.promotedAtMs), rollback };
}

function repairProgress(raw: unknown): RepairProgress | null {
  if (!isObject(raw)) return null;
  const total = count(raw.totalBytes) || null;
  const done = count(raw.downloadedBytes);
  return { version: text(raw.version, VERSION), downloadedBytes: total === null ? done : Math.min(done, total), totalBytes: total };
}

/** `recovery_status`, field by field (an unusable answer reads as unmanaged). */
export function recoveryStatus(raw: unknown): RecoveryStatus {
  const r = isObject(raw) ? raw : {};
  const o = isObject(r.overview) ? r.overview : null;
  const current = o ? retainedBuild(o.current) : null;
  const managed = r.managed === true && current !== null;
  const predecessors = managed && o && Array.isArray(o.predecessors)
    ? o.predecessors.map(retainedBuild).filter((b): b is RetainedBuild => b !== null && b.rollback !== 'current').slice(0, MAX_RETAINED_PREDECESSORS)
    : [];
  return {
    managed,
    current: managed ? current : null,
    predecessors,
    candidatePending: managed && o?.candidatePending === true,
    rollbackRequested: managed && o?.rollbackRequested === true,
    quarantinedReleases: managed && o ? count(o.quarantinedReleases) : 0,
    repair: managed ? repairProgress(r.repair) : null,
  };
}

/** `recovery_repair`'s answer. */
export function repairInfo(raw: unknown): RepairInfo {
  const r = isObject(raw) ? raw : {};
  return { build: text(r.build, BUILD_ID), version: text(r.version, VERSION), repaired: r.repaired === true };
}

/** `recovery_rollback`'s answer. */
export function rollbackInfo(raw: unknown): RollbackInfo {
  const r = isObject(raw) ? raw : {};
  return { build: text(r.build, BUILD_ID), version: text(r.version, VERSION) };
}
