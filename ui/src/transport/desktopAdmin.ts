// The server PC's Administration answers from the desktop bridge (admin_status, admin_command's
// admin.snapshot, admin_set_logo), read field by field: an unknown role reads as the least
// privileged one and anything the server sent beyond the listed fields is dropped, so nothing but
// "Configured" / "Not configured" about a password can reach the screen. The commands themselves
// are invoked in desktop.ts (the registry tests read the command names there).
import type { LogoKind } from './types';

const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);
const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** An administration role on the server (the server's authority decides who holds which). */
export type AdminRole = 'owner' | 'administrator' | 'publisher';

/** A signed-in administration session; it idle-locks at `lockAtMs` (epoch ms), 15 minutes after
 * the last privileged action (reading does not extend it). */
export interface AdminSession {
  username: string;
  role: AdminRole;
  lockAtMs: number;
}

/** What `admin_status`, `admin_sign_in`, `admin_confirm_password` and `admin_lock` return;
 * `available` is false outside server mode. */
export interface AdminStatus {
  available: boolean;
  session: AdminSession | null;
}

/** One account in `admin.snapshot`. No secret: the password is only whether one is set. */
export interface AdminAccount {
  id: string;
  username: string;
  displayName: string;
  kind: 'administrator' | 'publisher';
  active: boolean;
  /** The role the authority gives it now, or null. */
  role: AdminRole | null;
  password: 'Configured' | 'Not configured';
}

/** One paired device in `admin.snapshot`. */
export interface AdminDevice {
  id: string;
  accountId: string;
  label: string;
  hostname: string;
  /** 'active', 'revoked', … (shown as is). */
  state: string;
  fingerprintSuffix: string;
}

/** Who holds Owner and Publisher; authority commands carry `revision` as their expected revision. */
export interface AdminAuthority {
  ownerAccountId: string;
  publisherAccountId: string | null;
  revision: number;
}

/** `admin_command` `admin.snapshot`. */
export interface AdminSnapshot {
  accounts: AdminAccount[];
  devices: AdminDevice[];
  authority: AdminAuthority;
}

/** The commands `admin_command` runs. */
export type AdminCommandName =
  | 'admin.snapshot'
  | 'accounts.create'
  | 'accounts.rename'
  | 'accounts.setActive'
  | 'accounts.setPassword'
  | 'devices.revoke'
  | 'pairing.start'
  | 'publisher.assign'
  | 'ownership.transfer'
  | 'audit.verify'
  | 'dynatrace.status'
  | 'dynatrace.configure'
  | 'dynatrace.setToken'
  | 'dynatrace.removeToken'
  | 'dynatrace.testConnection'
  | 'wiki.library'
  | 'wiki.category.create'
  | 'wiki.category.rename'
  | 'wiki.category.reorder'
  | 'wiki.category.delete'
  | 'wiki.upload.begin'
  | 'wiki.upload.status'
  | 'wiki.upload.cancel'
  | 'wiki.publish'
  | 'wiki.replace'
  | 'wiki.retitle'
  | 'wiki.trash'
  | 'wiki.restore'
  | 'wiki.delete';

const ADMIN_ROLES: readonly string[] = ['owner', 'administrator', 'publisher'];
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** An admin status with every field checked: an unknown role reads as the least privileged one. */
export function adminStatus(raw: unknown): AdminStatus {
  const r = isObject(raw) ? raw : {};
  const s = isObject(r.session) ? r.session : null;
  const session: AdminSession | null = s && typeof s.username === 'string'
    ? {
        username: s.username,
        role: ADMIN_ROLES.includes(str(s.role)) ? (s.role as AdminRole) : 'publisher',
        lockAtMs: typeof s.lockAtMs === 'number' && Number.isFinite(s.lockAtMs) ? s.lockAtMs : 0,
      }
    : null;
  return { available: r.available === true, session: r.available === true ? session : null };
}

export type { LogoKind };

/** `admin_set_logo`: the stored PNG's size in pixels and bytes. */
export interface LogoSet {
  width: number;
  height: number;
  bytes: number;
}

/** A logo answer with every field checked (missing numbers read as 0). */
export function logoSet(raw: unknown): LogoSet {
  const o = isObject(raw) ? raw : {};
  return { width: count(o.width), height: count(o.height), bytes: count(o.bytes) };
}

/** `admin.snapshot` with only the listed fields kept (anything else the server sent is dropped,
 * so nothing but "Configured" / "Not configured" about a password can reach the screen). */
export function adminSnapshot(raw: unknown): AdminSnapshot {
  const r = isObject(raw) ? raw : {};
  const accounts = (Array.isArray(r.accounts) ? r.accounts : []).filter(isObject).map((a): AdminAccount => ({
    id: str(a.id),
    username: str(a.username),
    displayName: str(a.displayName),
    kind: a.kind === 'administrator' ? 'administrator' : 'publisher',
    active: a.active === true,
    role: ADMIN_ROLES.includes(str(a.role)) ? (a.role as AdminRole) : null,
    password: a.password === 'Configured' ? 'Configured' : 'Not configured',
  }));
  const devices = (Array.isArray(r.devices) ? r.devices : []).filter(isObject).map((d): AdminDevice => ({
    id: str(d.id),
    accountId: str(d.accountId),
    label: str(d.label),
    hostname: str(d.hostname),
    state: str(d.state) || 'unknown',
    fingerprintSuffix: str(d.fingerprintSuffix),
  }));
  const a = isObject(r.authority) ? r.authority : {};
  const authority: AdminAuthority = {
    ownerAccountId: str(a.ownerAccountId),
    publisherAccountId: typeof a.publisherAccountId === 'string' && a.publisherAccountId !== '' ? a.publisherAccountId : null,
    revision: typeof a.revision === 'number' && Number.isFinite(a.revision) ? a.revision : 0,
  };
  return { accounts, devices, authority };
}


/** One file's progress from `admin_wiki_upload` (file name, size, state and ids only: the path
 * stays in the desktop shell). */
export interface WikiUploadEvent {
  uploadId: string;
  fileName: string;
  byteSize: number;
  /** queued, uploading, assembling, extracting, ready, failed. */
  state: string;
  storedChunks: number;
  chunkCount: number;
  error: string | null;
}

/** What `admin_wiki_upload` answers when every chosen file was fed (no batch: the chooser was
 * cancelled). */
export interface WikiUploadSummary {
  batchId: string | null;
  files: WikiUploadEvent[];
}

/** A progress event with every field checked (only the listed fields kept). */
export function wikiUploadEvent(raw: unknown): WikiUploadEvent {
  const o = isObject(raw) ? raw : {};
  return {
    uploadId: str(o.uploadId),
    fileName: str(o.fileName),
    byteSize: count(o.byteSize),
    state: str(o.state) || 'queued',
    storedChunks: count(o.storedChunks),
    chunkCount: count(o.chunkCount),
    error: typeof o.error === 'string' && o.error !== '' ? o.error : null,
  };
}

export function wikiUploadSummary(raw: unknown): WikiUploadSummary {
  const o = isObject(raw) ? raw : {};
  return {
    batchId: typeof o.batchId === 'string' && o.batchId !== '' ? o.batchId : null,
    files: (Array.isArray(o.files) ? o.files : []).map(wikiUploadEvent),
  };
}
