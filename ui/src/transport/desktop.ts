// Relay desktop (Tauri) detection: the window's page origin is the app's own (`tauri://localhost`
// or `http://tauri.localhost`), not the server, so the server URL comes from the typed bridge
// (`connection_info`). The transport then talks to that origin exactly as in direct mode
// (passphrase → /api/collections/users/auth-with-password, bearer token in memory, SSE realtime);
// the server's CORS rule admits exactly the Tauri app origins. /web/api/mode is never asked.
// Every command invoked here must be in app/desktop/src/registry/names.rs; the desktop crate's
// registry tests parse this file's invoke('…') / call('…') names and fail on any mismatch.
import { PocketBaseTransport, type PocketBaseTransportOptions } from './pocketbase';
import type {
  CachedCollection,
  ChangeReview,
  DynatraceBridge,
  LogoKind,
  OfflineBridge,
  OfflineMutation,
  OfflineMutationResult,
  OfflineStatus,
  PendingChange,
  PendingPage,
  ReplayReport,
  Resolution,
  ServerCopy,
} from './types';
import {
  adminSnapshot,
  adminStatus,
  logoSet,
  wikiUploadEvent,
  wikiUploadSummary,
  type AdminCommandName,
  type AdminSnapshot,
  type AdminStatus,
  type LogoSet,
  type WikiUploadEvent,
  type WikiUploadSummary,
} from './desktopAdmin';
import type { BackupArchive, BackupStatus, RestoreStaged } from './desktopBackup';
import { laptopStatus, type LaptopStatus } from './desktopLaptop';
import type { ProtectedSession } from './protectedSession';
import { releaseNotes, restartInfo, updateSnapshot, type ReleaseNotes, type RestartInfo, type UpdateSnapshot } from './desktopUpdate';
import { recoveryStatus, repairInfo, rollbackInfo, type RecoveryStatus, type RepairInfo, type RollbackInfo } from './desktopRecovery';
import { detectWebMode } from './webSession';

export * from './desktopAdmin';
export * from './desktopBackup';
export * from './desktopLaptop';
export * from './desktopUpdate';
export * from './desktopRecovery';

/** What `connection_info` returns (app/desktop/src/secrets_cmd.rs, `DesktopConnectionInfo`). */
export interface DesktopConnectionInfo {
  /** 'setup': nothing chosen yet, the window shows the setup screen (serverUrl is ''). */
  mode: 'server' | 'client' | 'setup';
  /** The server origin, e.g. `http://127.0.0.1:8090`. */
  serverUrl: string;
  passphraseAvailable: boolean;
  /** Where remembered passphrases go: the OS secret store, an owner-only file (development
   * builds only) or nowhere ('memory-only': a packaged build without an OS secret store). */
  secretStorage: SecretStorage;
}

export type SecretStorage = 'os-secret-store' | 'owner-only-file' | 'memory-only';

/** `window.__TAURI__.core.Channel`: a command's stream back to this window (serialized as its id). */
export interface TauriChannel {
  onmessage: (message: unknown) => void;
}

/** A command's arguments: named values, or raw bytes (read by the command as the request body). */
type InvokeArgs = Record<string, unknown> | Uint8Array;

interface TauriGlobal {
  core: {
    invoke(cmd: string, args?: InvokeArgs, options?: { headers: Record<string, string> }): Promise<unknown>;
    Channel?: new () => TauriChannel;
  };
}

/** The `window.__TAURI__` global (`app.withGlobalTauri`), or null outside the desktop shell. */
export function tauriGlobal(w: unknown): TauriGlobal | null {
  const t = (w as { __TAURI__?: Partial<TauriGlobal> } | undefined)?.__TAURI__;
  return t && typeof t.core?.invoke === 'function' ? (t as TauriGlobal) : null;
}

/** Only an http(s) origin is accepted as the server; returns it normalized (no path, no slash). */
export function serverOrigin(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw === '') return null;
  try {
    const u = new URL(raw);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    if (u.username || u.password) return null;
    return u.origin;
  } catch {
    return null;
  }
}

/**
 * null when not inside the desktop shell. Inside it: the bridge's connection info with a validated
 * server origin; throws when the bridge refuses or gives no usable server URL.
 */
export async function detectDesktop(w: unknown): Promise<DesktopConnectionInfo | null> {
  const tauri = tauriGlobal(w);
  if (!tauri) return null;
  const info = (await tauri.core.invoke('connection_info')) as Partial<DesktopConnectionInfo> | null;
  const setup = info?.mode === 'setup';
  const serverUrl = setup ? '' : serverOrigin(info?.serverUrl);
  if (!info || serverUrl === null) throw new Error('The desktop bridge gave no server URL.');
  return {
    mode: setup ? 'setup' : info.mode === 'client' ? 'client' : 'server',
    serverUrl,
    passphraseAvailable: info.passphraseAvailable === true,
    secretStorage:
      info.secretStorage === 'os-secret-store' || info.secretStorage === 'owner-only-file' ? info.secretStorage : 'memory-only',
  };
}

/** The setup screen's choice (`domain::desktop_setup::DesktopSetup`). */
export type DesktopSetupChoice =
  | { mode: 'server'; lanAccess: boolean }
  | { mode: 'client'; serverUrl: string; allowInsecureHttp: boolean };

/** One server found on the LAN (`discover_servers`). */
export interface DiscoveredServer {
  name: string;
  host: string;
  port: number;
  url: string;
}

/** What `stability_status` returns (app/desktop/src/guards.rs). */
export interface StabilityStatus {
  failures: number;
  warningAtMs: number | null;
}

/** The codes of the bridge's refusals (app/desktop/src/bridge.rs `BridgeError`). The
 * administration commands add `locked` (the admin session is gone) and `passwordRequired` (the
 * action needs a fresh password: `admin_confirm_password`, then retry). */
export type BridgeCode = 'forbidden' | 'invalid' | 'rateLimited' | 'unavailable' | 'rejected' | 'locked' | 'passwordRequired';

/** A refusal from the bridge: its operator-facing message and its code. */
export class BridgeRefusal extends Error {
  constructor(
    message: string,
    readonly code: BridgeCode | null,
    /** `rateLimited` with a number of seconds as its message: those seconds. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = 'BridgeRefusal';
  }
}

const BRIDGE_CODES: readonly string[] = ['forbidden', 'invalid', 'rateLimited', 'unavailable', 'rejected', 'locked', 'passwordRequired'];

const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);
const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** A replay report from the bridge with every field present, or null when there is none. */
export function replayReport(raw: unknown): ReplayReport | null {
  if (!isObject(raw)) return null;
  return { total: count(raw.total), synced: count(raw.synced), conflicts: count(raw.conflicts), failed: count(raw.failed), stopped: text(raw.stopped) };
}

/** `offline_status` with every field present and in range (it is polled and shown as is). */
export function offlineStatus(raw: unknown): OfflineStatus {
  const r = isObject(raw) ? raw : {};
  const p = Array.isArray(r.progress) ? r.progress : null;
  const progress: [number, number] | null = p && p.length === 2 ? [Math.min(count(p[0]), count(p[1])), count(p[1])] : null;
  return {
    pendingCount: count(r.pendingCount),
    issueCount: count(r.issueCount),
    replaying: r.replaying === true,
    progress,
    lastError: text(r.lastError),
    lastReplay: replayReport(r.lastReplay),
    storageNotice: text(r.storageNotice),
  };
}

function pendingChange(raw: unknown): PendingChange | null {
  if (!isObject(raw) || typeof raw.id !== 'number' || typeof raw.collection !== 'string') return null;
  const action = raw.action === 'create' || raw.action === 'delete' ? raw.action : 'update';
  return { id: raw.id, collection: raw.collection, action, recordId: String(raw.recordId ?? ''), label: String(raw.label ?? ''), reason: String(raw.reason ?? '') };
}

function serverCopy(raw: unknown): ServerCopy {
  if (isObject(raw) && raw.state === 'present' && isObject(raw.record)) return { state: 'present', record: raw.record };
  return isObject(raw) && raw.state === 'deleted' ? { state: 'deleted' } : { state: 'unavailable' };
}

/**
 * The desktop bridge's passphrase, setup, discovery, stability, backup, administration (server
 * mode: admin session and commands), update (both modes), external-link and offline (client
 * mode: cache, write queue, replay, review) commands. The bridge refuses with
 * `{ code, message }`; these reject with a BridgeRefusal carrying both.
 */
export class DesktopBridge implements OfflineBridge, DynatraceBridge, ProtectedSession {
  /** The server PC's own protected session (see ./protectedSession). */
  readonly surface = 'local' as const;

  constructor(private readonly tauri: TauriGlobal) {}

  static of(w: unknown): DesktopBridge | null {
    const t = tauriGlobal(w);
    return t ? new DesktopBridge(t) : null;
  }

  private async call(cmd: string, args?: InvokeArgs, headers?: Record<string, string>): Promise<unknown> {
    try {
      return await (headers ? this.tauri.core.invoke(cmd, args, { headers }) : this.tauri.core.invoke(cmd, args));
    } catch (e) {
      const { message, code } = (e ?? {}) as { message?: unknown; code?: unknown };
      // `RateLimited(u64)` serializes its seconds as the message.
      const seconds = typeof message === 'number' && Number.isFinite(message) && message >= 0 ? Math.ceil(message) : null;
      throw new BridgeRefusal(
        typeof message === 'string' ? message : seconds !== null ? `Too many requests; try again in ${seconds} s.` : `${cmd} was refused`,
        typeof code === 'string' && BRIDGE_CODES.includes(code) ? (code as BridgeCode) : null,
        seconds,
      );
    }
  }

  /** Client mode: the offline queue and cache (polled by the status bar). */
  async status(): Promise<OfflineStatus> {
    return offlineStatus(await this.call('offline_status'));
  }

  /** Client mode: keeps a collection's online snapshot (at most OFFLINE_CACHE_MAX_RECORDS records). */
  async cachePut(collection: string, records: readonly unknown[]): Promise<void> {
    await this.call('offline_cache_put', { collection, records });
  }

  /** Client mode: the cached snapshot with the queued changes applied; null when nothing is cached. */
  async cacheRead<T>(collection: string): Promise<CachedCollection<T> | null> {
    const r = await this.call('offline_cache_read', { collection });
    if (!isObject(r) || !Array.isArray(r.records)) return null;
    return { records: r.records as T[], fetchedAtMs: count(r.fetchedAtMs) };
  }

  /** Client mode, offline: queues one write; resolves with the optimistic record to show. */
  async mutate(mutation: OfflineMutation): Promise<OfflineMutationResult> {
    const r = await this.call('offline_mutate', { mutation });
    const o = isObject(r) ? r : {};
    return {
      mutationId: typeof o.mutationId === 'string' ? o.mutationId : '',
      changeId: typeof o.changeId === 'number' ? o.changeId : null,
      recordId: typeof o.recordId === 'string' ? o.recordId : (mutation.recordId ?? ''),
      record: isObject(o.record) ? o.record : null,
      pendingCount: count(o.pendingCount),
    };
  }

  /** Client mode: replays the queue (joins a replay in progress); resolves when it has ended. */
  async replay(): Promise<ReplayReport> {
    return replayReport(await this.call('offline_replay')) ?? { total: 0, synced: 0, conflicts: 0, failed: 0, stopped: null };
  }

  /** Client mode: one page (25) of the queued changes after `afterId`. */
  async pendingChanges(afterId?: number): Promise<PendingPage> {
    const request = afterId === undefined ? { action: 'list' } : { action: 'list', afterId };
    const r = await this.call('pending_changes', { request });
    const o = isObject(r) ? r : {};
    return {
      items: Array.isArray(o.items) ? o.items.map(pendingChange).filter((c): c is PendingChange => c !== null) : [],
      nextAfterId: typeof o.nextAfterId === 'number' ? o.nextAfterId : null,
    };
  }

  /** Client mode: one queued change beside the server's copy, with a single-use token to resolve it. */
  async reviewChange(id: number): Promise<ChangeReview> {
    const r = await this.call('pending_changes', { request: { action: 'review', id } });
    const o = isObject(r) ? r : {};
    if (typeof o.token !== 'string' || o.token === '') throw new BridgeRefusal('The desktop shell returned no review.', null);
    return { token: o.token, change: isObject(o.change) ? o.change : {}, local: isObject(o.local) ? o.local : null, server: serverCopy(o.server) };
  }

  /** Client mode: keeps the server's version, or queues the change again (with edits) for the next replay. */
  async resolveChange(token: string, resolution: Resolution, edits?: Record<string, unknown>): Promise<void> {
    const request = edits && resolution === 'retry' ? { action: 'resolve', token, resolution, edits } : { action: 'resolve', token, resolution };
    await this.call('pending_changes', { request });
  }

  /** Server mode: backup health and the running operation's progress. */
  async backupStatus(): Promise<BackupStatus> {
    return (await this.call('backup_status')) as BackupStatus;
  }

  /** Server mode: the archives in the data directory, newest first. */
  async backupList(): Promise<BackupArchive[]> {
    const r = await this.call('backup_list');
    return Array.isArray(r) ? (r as BackupArchive[]) : [];
  }

  /** Server mode: write and verify a backup now (resolves when done; poll backupStatus meanwhile). */
  async backupCreate(): Promise<{ name: string; size: number }> {
    return (await this.call('backup_create')) as { name: string; size: number };
  }

  /** Server mode: verify one archive in a disposable restore. */
  async backupVerify(name: string): Promise<{ name: string; tables: number }> {
    return (await this.call('backup_verify', { name })) as { name: string; tables: number };
  }

  /** Server mode: stage a restore of `name`; the server then restarts onto it (poll backupStatus). */
  async backupRestore(name: string): Promise<RestoreStaged> {
    return (await this.call('backup_restore', { name })) as RestoreStaged;
  }

  /** Both modes: the updater's state (polled while a download or preparation runs). */
  async updateStatus(): Promise<UpdateSnapshot> {
    return updateSnapshot(await this.call('update_status'));
  }

  /** "Check for updates" (one per minute: `rateLimited` with the seconds otherwise). */
  async updateCheck(): Promise<UpdateSnapshot> {
    return updateSnapshot(await this.call('update_check'));
  }

  /** Starts the verified download of the offered release; `updateStatus` shows the bytes. */
  async updateDownload(): Promise<UpdateSnapshot> {
    return updateSnapshot(await this.call('update_download'));
  }

  /** Cancels the download; resolves once its files are gone. */
  async updateCancel(): Promise<UpdateSnapshot> {
    return updateSnapshot(await this.call('update_cancel'));
  }

  /** Starts extracting and checking the downloaded executable. */
  async updatePrepare(): Promise<UpdateSnapshot> {
    return updateSnapshot(await this.call('update_prepare'));
  }

  /** Re-verifies the prepared executable; nothing runs until the recovery launcher exists. */
  async updateRestart(): Promise<RestartInfo> {
    return restartInfo(await this.call('update_restart'));
  }

  /** Both modes (Settings → About): the release notes the updater holds, newest first. */
  async updateReleaseNotes(): Promise<ReleaseNotes> {
    return releaseNotes(await this.call('update_release_notes'));
  }

  /** Both modes: the recovery launcher's retained builds (`managed` false when it does not run this app). */
  async recoveryStatus(): Promise<RecoveryStatus> {
    return recoveryStatus(await this.call('recovery_status'));
  }

  /** Server mode, the Owner's session with a fresh password (else `passwordRequired`): asks the
   * recovery launcher to make the retained `build` current; the app then exits into it. */
  async recoveryRollback(build: string): Promise<RollbackInfo> {
    return rollbackInfo(await this.call('recovery_rollback', { build }));
  }

  /** Server mode, the Owner's session with a fresh password (else `passwordRequired`): puts back
   * the retained `build`'s program from its own release when its files changed. */
  async recoveryRepair(build: string): Promise<RepairInfo> {
    return repairInfo(await this.call('recovery_repair', { build }));
  }

  /** Server mode: whether administration is available and the admin session, if one is signed in. */
  async adminStatus(): Promise<AdminStatus> {
    return adminStatus(await this.call('admin_status'));
  }

  /** Server mode: signs in to administration (rejected / rateLimited on a wrong password). */
  async adminSignIn(username: string, password: string): Promise<AdminStatus> {
    return adminStatus(await this.call('admin_sign_in', { username, password }));
  }

  /** Server mode: proves a fresh password for the next action that answered `passwordRequired`. */
  async adminConfirmPassword(password: string): Promise<AdminStatus> {
    return adminStatus(await this.call('admin_confirm_password', { password }));
  }

  /** Server mode: locks the admin session now. */
  async adminLock(): Promise<AdminStatus> {
    return adminStatus(await this.call('admin_lock'));
  }

  /** Server mode: runs one administration command; resolves with its JSON result. Authority
   * commands carry the snapshot's authority revision, the others null. */
  async adminCommand(command: AdminCommandName, payload: Record<string, unknown>, expectedRevision: number | null = null): Promise<unknown> {
    return this.call('admin_command', { command, payload, expectedRevision });
  }

  /** Server mode: the accounts, devices and authority (`admin.snapshot`). */
  async adminSnapshot(): Promise<AdminSnapshot> {
    return adminSnapshot(await this.adminCommand('admin.snapshot', {}, null));
  }

  /** Client mode: this laptop's pairing and its protected session (./desktopLaptop). */
  async laptopStatus(): Promise<LaptopStatus> {
    return laptopStatus(await this.call('laptop_status'));
  }

  /** Client mode: redeems the server PC's pairing code for `username` (the key stays in the shell). */
  async laptopPair(username: string, code: string, label: string): Promise<LaptopStatus> {
    return laptopStatus(await this.call('laptop_pair', { username, code, label }));
  }

  /** Client mode, paired: opens the protected session as the paired account. */
  async laptopSignIn(password: string): Promise<LaptopStatus> {
    return laptopStatus(await this.call('laptop_sign_in', { password }));
  }

  async laptopConfirmPassword(password: string): Promise<LaptopStatus> {
    return laptopStatus(await this.call('laptop_confirm_password', { password }));
  }

  async laptopLock(): Promise<LaptopStatus> {
    return laptopStatus(await this.call('laptop_lock'));
  }

  /** Client mode, signed in: one signed command; resolves with its JSON result (as `admin_command`). */
  async laptopCommand(command: AdminCommandName, payload: Record<string, unknown>, expectedRevision: number | null = null): Promise<unknown> {
    return this.call('laptop_command', { command, payload, expectedRevision });
  }

  /** Client mode: drops this laptop's pairing and key (then 'unpaired'). */
  async laptopForget(): Promise<LaptopStatus> {
    return laptopStatus(await this.call('laptop_forget'));
  }

  /** Server mode, Owner or Administrator session: stores the company or footer logo from the raw
   * image file's bytes, base64-encoded (no `data:` prefix). Refused as `invalid` over 2 MiB, as
   * `rejected` with the reason for an image it cannot use; resolves with what was stored. */
  async adminSetLogo(kind: LogoKind, imageBase64: string): Promise<LogoSet> {
    return logoSet(await this.call('admin_set_logo', { kind, imageBase64 }));
  }

  /** Server mode, Owner or Administrator session: removes the logo (fine when none is set). */
  async adminRemoveLogo(kind: LogoKind): Promise<void> {
    await this.call('admin_remove_logo', { kind });
  }

  /**
   * Server mode, a Wiki-capable session (Owner, Administrator, Publisher): the shell shows the
   * native file chooser, then announces and uploads the chosen PDFs (one, opened for the
   * document, when `replacementDocumentId` is set). `onEvent` gets each file's progress; resolves
   * when every file was fed (an empty summary when the chooser was cancelled).
   */
  async adminWikiUpload(replacementDocumentId: string | null, onEvent: (event: WikiUploadEvent) => void): Promise<WikiUploadSummary> {
    return this.wikiUpload(onEvent, (onProgress) => this.call('admin_wiki_upload', { replacementDocumentId, onProgress }));
  }

  /**
   * Client mode, the paired laptop's live session (a Wiki-capable account): the same as
   * `adminWikiUpload`, but the shell signs the batch and every chunk as this laptop's device.
   */
  async laptopWikiUpload(replacementDocumentId: string | null, onEvent: (event: WikiUploadEvent) => void): Promise<WikiUploadSummary> {
    return this.wikiUpload(onEvent, (onProgress) => this.call('laptop_wiki_upload', { replacementDocumentId, onProgress }));
  }

  /** A Wiki upload command with a progress channel (events read field by field) and its summary. */
  private async wikiUpload(onEvent: (event: WikiUploadEvent) => void, run: (onProgress: TauriChannel) => Promise<unknown>): Promise<WikiUploadSummary> {
    const Channel = this.tauri.core.Channel;
    if (!Channel) throw new BridgeRefusal('This desktop shell cannot report upload progress.', 'unavailable');
    const onProgress = new Channel();
    onProgress.onmessage = (message) => onEvent(wikiUploadEvent(message));
    return wikiUploadSummary(await run(onProgress));
  }

  /**
   * Both modes, main window: saves a Wiki PDF the viewer already checked through the shell's
   * native Save As. The bytes go as the raw body; the shell checks them against `checksum` again
   * and offers `fileName` (a suggestion only: it picks the folder and the final name). Resolves
   * with the saved file's name, or null when the dialog was cancelled.
   */
  async saveWikiPdf(bytes: Uint8Array, fileName: string, checksum: string): Promise<string | null> {
    const headers = { 'x-relay-file-name': encodeURIComponent(fileName), 'x-relay-checksum': checksum };
    const r = await this.call('wiki_save_pdf', bytes, headers);
    return isObject(r) && r.saved === true && typeof r.fileName === 'string' ? r.fileName : null;
  }

  /**
   * Opens an https link in the OS browser (`open_external`: the shell's shared rate limit, then
   * its external-link policy). Rejects with the bridge's message when refused.
   */
  async openExternal(url: string): Promise<void> {
    await this.call('open_external', { url });
  }

  /**
   * Main window: opens the Dynatrace dashboard at `url` in the shell's Dynatrace window (one per
   * dashboard; the shell checks the URL again). Resolves with the window's label.
   */
  async openDynatrace(url: string, key?: string): Promise<string | null> {
    const label = await this.call('open_dynatrace', key ? { url, key } : { url });
    return typeof label === 'string' && label !== '' ? label : null;
  }

  /** Main window: each dashboard popout's state by key (only string states are kept). */
  async popouts(): Promise<Record<string, string>> {
    const raw = await this.call('dynatrace_popouts');
    const out: Record<string, string> = {};
    if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
      for (const [k, v] of Object.entries(raw as Record<string, unknown>)) if (typeof v === 'string') out[k] = v;
    }
    return out;
  }

  /** Main window: closes one dashboard's popout. */
  async close(key: string): Promise<void> {
    await this.call('close_dynatrace', { key });
  }

  /** Main window, server mode: opens the Radar sign-in window. */
  async openRadarSignIn(): Promise<void> {
    await this.call('open_radar_sign_in');
  }

  /** Main window, server mode: uses the sign-in window's session for the Radar (never returned here). */
  async finishRadarSignIn(): Promise<{ signInRequired: boolean; error: string | null }> {
    const r = (await this.call('finish_radar_sign_in')) as { signInRequired?: unknown; error?: unknown } | null;
    return { signInRequired: r?.signInRequired !== false, error: typeof r?.error === 'string' ? r.error : null };
  }

  /** Main window: clears the Dynatrace windows' browsing storage (their sign-in). */
  async clearDynatraceSession(): Promise<void> {
    await this.call('clear_dynatrace_session');
  }

  info(): Promise<DesktopConnectionInfo | null> {
    return detectDesktop({ __TAURI__: this.tauri });
  }

  /** Server mode only: this server's passphrase (a client's remembered one never leaves the shell). */
  async revealPassphrase(): Promise<string> {
    const p = await this.call('reveal_passphrase');
    if (typeof p !== 'string' || p === '') throw new Error('No passphrase is available.');
    return p;
  }

  /** Client mode: remembers the passphrase; resolves with where it went. */
  async rememberPassphrase(passphrase: string): Promise<SecretStorage> {
    const r = (await this.call('remember_passphrase', { passphrase })) as { storage?: SecretStorage } | null;
    return r?.storage ?? 'memory-only';
  }

  async forgetPassphrase(): Promise<void> {
    await this.call('forget_passphrase');
  }

  /** Saves the setup; the app then restarts into it (the promise may never settle). */
  async saveSetup(setup: DesktopSetupChoice): Promise<void> {
    await this.call('save_setup', { setup });
  }

  /** Clears the saved setup; the app restarts into the setup screen. */
  async resetSetup(): Promise<void> {
    await this.call('reset_setup');
  }

  async discoverServers(): Promise<DiscoveredServer[]> {
    const r = await this.call('discover_servers');
    if (!Array.isArray(r)) return [];
    return r.filter(
      (s): s is DiscoveredServer =>
        !!s && typeof s.name === 'string' && typeof s.url === 'string' && serverOrigin(s.url) !== null,
    );
  }

  async stability(): Promise<StabilityStatus> {
    const r = (await this.call('stability_status')) as Partial<StabilityStatus> | null;
    return {
      failures: typeof r?.failures === 'number' ? r.failures : 0,
      warningAtMs: typeof r?.warningAtMs === 'number' ? r.warningAtMs : null,
    };
  }
}

/** An auxiliary window's borrowed session: the server origin and, once the main window is signed in, its token. */
async function auxSession(tauri: TauriGlobal): Promise<{ serverUrl: string; token: string | null } | null> {
  const r = (await tauri.core.invoke('aux_session')) as { serverUrl?: unknown; token?: unknown } | null;
  const serverUrl = serverOrigin(r?.serverUrl);
  if (!serverUrl) return null;
  return { serverUrl, token: typeof r?.token === 'string' && r.token !== '' ? r.token : null };
}

/**
 * The main window's `shell_mounted` report (app/desktop/src/launcher_link.rs): the first call
 * invokes it, later ones (a remount after sign-out, StrictMode's second effect) do nothing. A
 * refusal is only logged; the recovery launcher, not the renderer, decides what a missing
 * report means.
 */
export function shellMountedOnce(tauri: TauriGlobal): () => void {
  let sent = false;
  return () => {
    if (sent) return;
    sent = true;
    void tauri.core.invoke('shell_mounted').catch((e: unknown) => console.error('relay desktop: shell_mounted failed', e));
  };
}

type FetchFn = (url: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

export interface CreateTransportEnv {
  /** The global object (`window`): `__TAURI__` and `location` (origin, search) are read from it. */
  window: { location: { origin: string; search?: string } } & Record<string, unknown>;
  /** Injected fetch (tests); defaults to the global fetch. */
  fetch?: FetchFn;
  /** Extra transport options (tests). */
  options?: Omit<PocketBaseTransportOptions, 'origin' | 'web' | 'desktop' | 'fetch'>;
  /** The bridge's connection info when the caller already asked for it (not asked again). */
  desktop?: DesktopConnectionInfo | null;
}

/**
 * The renderer's transport for where it runs: inside the desktop shell, the bridge's server URL
 * in 'desktop' mode (no /web/api/mode probe); otherwise the page's own origin, 'relay-web' when
 * /web/api/mode says so, else 'direct'. A failing bridge is logged and falls back to the page origin.
 */
export async function createTransport(env: CreateTransportEnv): Promise<PocketBaseTransport> {
  const base = { ...env.options, ...(env.fetch ? { fetch: env.fetch } : {}) };
  const tauri = tauriGlobal(env.window);
  if (tauri && new URLSearchParams(env.window.location.search ?? '').has('popout')) {
    const aux = await auxSession(tauri).catch((e: unknown) => {
      console.error('relay desktop: aux_session failed', e);
      return null;
    });
    if (aux) {
      const transport = new PocketBaseTransport({ ...base, origin: aux.serverUrl, desktop: true });
      if (aux.token) transport.adoptSession(aux.token);
      return transport;
    }
  }
  const desktop =
    env.desktop !== undefined
      ? env.desktop
      : await detectDesktop(env.window).catch((e: unknown) => {
          console.error('relay desktop: connection_info failed', e);
          return null;
        });
  if (desktop && tauri && desktop.mode !== 'setup') {
    const share = (token: string | null) =>
      void tauri.core.invoke('share_session', { token }).catch((e: unknown) => console.error('relay desktop: share_session failed', e));
    // Client mode signs in through the shell's AuthCoordinator (and its remembered passphrase).
    const client = desktop.mode === 'client';
    const shellSignIn = client ? (passphrase: string | null) => tauri.core.invoke('sign_in', { passphrase }) : undefined;
    // Client mode keeps working through an outage on the shell's cache and write queue.
    const offline = client ? new DesktopBridge(tauri) : null;
    // Dynatrace windows are opened from the main window only (never from a popout above).
    const dynatrace = new DesktopBridge(tauri);
    const shellMounted = shellMountedOnce(tauri);
    return new PocketBaseTransport({ ...base, origin: desktop.serverUrl, desktop: true, onSession: share, shellSignIn, offline, dynatrace, shellMounted });
  }
  const origin = env.window.location.origin;
  return new PocketBaseTransport({ ...base, origin, web: await detectWebMode(origin, env.fetch) });
}
