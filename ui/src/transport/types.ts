// Transport contract: the ONE interface the whole UI uses to reach Relay data.
// Implementation: PocketBaseTransport, in three modes (browser same-origin, the Tauri
// desktop window, Relay Web). Nothing outside src/transport/ may talk HTTP/SSE.

export type ConnectionState =
  | 'connecting'
  | 'connected'
  | 'offline'
  | 'reconnecting'
  | 'auth-failed';

/** Fields every Relay record carries. `created`/`updated` look like "2026-12-02 12:57:11.123Z". */
export interface BaseRecord {
  id: string;
  created: string;
  updated: string;
  collectionName?: string;
  collectionId?: string;
}

export interface ListOptions {
  filter?: string;
  sort?: string;
  page?: number;
  perPage?: number;
}

export interface FullListOptions {
  filter?: string;
  sort?: string;
}

export interface ListResult<T> {
  items: T[];
  totalItems: number;
  page: number;
  perPage: number;
  totalPages: number;
}

/** 'reload' (record = {collectionName}) means "refetch this collection" (sent after bulk imports). */
export type RealtimeAction = 'create' | 'update' | 'delete' | 'reload';

/**
 * One client in the presence list. `sessionId` is the server's presence id for that tab: opaque,
 * derived from the tab's own id and its signed-in session, never the id a client sends (#39.6).
 */
export interface PresenceSession {
  sessionId: string;
  hostname: string;
  lastSeen: string;
}

/** POST /api/relay/presence/heartbeat answers this tab's row; its `sessionId` is this tab's presence id. */
export type PresenceHeartbeat = PresenceSession;

/** GET /api/relay/presence */
export interface PresenceSnapshot {
  activeCount: number;
  active: PresenceSession[];
  heartbeatIntervalMs: number;
  computedAt: string;
}

/** 'degraded': alive, but its work is failing (see `condition`); 'unconfigured': not set up, so not in use. */
export type ActorState = 'starting' | 'running' | 'restarting' | 'degraded' | 'unresponsive' | 'unconfigured';

/** Why a subsystem is degraded or not in use (a bounded set; the server's `ConditionCode`). */
export type ConditionCode =
  | 'feeds_failing'
  | 'sign_in_needed'
  | 'reads_failing'
  | 'not_configured'
  | 'sync_failing'
  | 'backup_failing'
  | 'backup_overdue';

/** A subsystem's condition: the reason in words (redacted, bounded), units failing of total where it counts them. */
export interface ActorCondition {
  code: ConditionCode;
  reason: string;
  failing?: number | null;
  total?: number | null;
  /** When this condition began (server time). */
  since: string;
}

/** One subsystem in GET /api/relay/health. `lastError` is redacted and bounded by the server. */
export interface ActorHealth {
  state: ActorState;
  restarts: number;
  queueDepth: number;
  lastError: string | null;
  lastErrorAt: string | null;
  lastReportMsAgo: number;
  /** Largest queue depth per bucket (`queueHistoryBucketSecs`), oldest first; null = no report. */
  queueHistory: (number | null)[];
  /** Degraded or not configured: why (absent from older servers; null when working). */
  condition?: ActorCondition | null;
}

/** GET /api/relay/health (the operator dashboard; read-only). */
export interface SystemHealth {
  status: 'ok' | 'degraded';
  version: string;
  uptimeSecs: number;
  queueHistoryBucketSecs: number;
  actors: Record<string, ActorHealth>;
  realtime: { clients: number; droppedSlow: number };
  /** Bytes on disk: database pages plus the write-ahead log. */
  database: { sizeBytes: number; pagesBytes: number; walBytes: number };
  /** Backups (a server with a data directory): ages, the fixed failure text, no archive names. */
  backup?: BackupHealthSummary;
}

export interface BackupHealthSummary {
  restorePointAgeMs: number | null;
  lastVerifiedAgeMs: number | null;
  lastFailure: string | null;
  failures: number;
  retentionAllowed: boolean;
  busy: boolean;
}

export interface ImportRowError {
  /** 1-based row number in the submitted records. */
  row: number;
  field: string | null;
  code: string;
  message: string;
}

/** POST /api/relay/import/{collection} report (200 for preview/applied, 400 when apply was refused). */
export interface ImportReport {
  collection: string;
  total: number;
  creates: number;
  updates: number;
  applied: boolean;
  errors: ImportRowError[];
}

/**
 * POST /api/relay/spreadsheet/rows: one sheet of an Excel .xlsx workbook as the server read it.
 * `columns` is the header row as written; each row maps every column to its cell as text ("" for
 * a blank cell); blank rows are left out.
 */
export interface SpreadsheetRows {
  sheet: string;
  columns: string[];
  rows: Record<string, string>[];
}

/** One provider's display state (worst-of: outage > unknown > degraded > operational). */
export type ProviderState = 'operational' | 'degraded' | 'unknown' | 'outage';

/** How bad a status item is; error and warning items are "active". */
export type StatusSeverity = 'info' | 'warning' | 'error' | 'resolved';

/** One normalized incident, notice or synthetic status item (plain text, bounded by the server). */
export interface StatusItem {
  id: string;
  provider: string;
  title: string;
  /** Plain text (never HTML). */
  description: string;
  /** Epoch milliseconds, or null when the source gave no date. */
  pubDate: number | null;
  /** An https link to the incident, or ''. */
  link: string;
  severity: StatusSeverity;
  affectedScopes?: string[];
}

/** One provider in GET /api/relay/status (17, in canonical order; the four `mist_*` are regions). */
export interface ProviderStatus {
  id: string;
  label: string;
  short: string;
  statusPage: string;
  xUrl: string | null;
  downdetectorUrl: string | null;
  state: ProviderState;
  items: StatusItem[];
  /** Set while the latest poll failed (the items are then from an earlier poll). */
  error: string | null;
  checkedAt: string | null;
  lastSuccessAt: string | null;
}

/** GET /api/relay/status: the server-owned service-status snapshot. */
export interface ServiceStatus {
  providers: ProviderStatus[];
  lastUpdated: string | null;
  nextPollAt: string | null;
  refreshing: boolean;
}

/** POST /api/relay/status/refresh (202): started, or a poll was already in flight. */
export interface StatusRefresh {
  started: boolean;
  inFlight?: boolean;
}

/** The Radar board's colours (the CW Dashboard's status bar and tones); 'unknown' when not read. */
export type RadarColor = 'green' | 'yellow' | 'red' | 'magenta' | 'unknown';

export interface RadarQueue {
  name: string;
  depth: number;
}

export interface RadarDispatcher {
  name: string;
  tone: RadarColor;
  /** As the page prints it ("12/03/2026 14:05"), never parsed. */
  lastScheduleDate: string;
  lastPubSubDate: string;
  queues: RadarQueue[];
}

export interface RadarMetric {
  label: string;
  /** The figure as printed ("1,204"), or null when the page shows none. */
  value: string | null;
  tone: RadarColor;
}

/** GET /api/relay/radar and POST /api/relay/radar/refresh: the server-owned Radar snapshot. */
export interface RadarSnapshot {
  color: RadarColor;
  dispatchers: RadarDispatcher[];
  papa: RadarQueue[];
  metrics: RadarMetric[];
  xcenter: { ok: number | null; pending: number | null };
  /** The page's own clock, as printed, or null. */
  currentTime: string | null;
  /** Epoch ms of the last good read; 0 = never read. */
  lastUpdated: number;
  /** The server PC's Radar session needs a sign-in (the board shown is the last one read). */
  signInRequired: boolean;
  /** Why the last read failed (the board shown is the last one read), or null. */
  error: string | null;
}

/**
 * One operation of a Servers sync batch (`POST /api/relay/servers/sync`). `expected` is the whole
 * record exactly as the preview read it (`expected.id === recordId`); the batch commits only if
 * every `expected` still matches the stored record.
 */
export type ServerSyncOperation =
  | { action: 'create'; data: Record<string, unknown> }
  | { action: 'update'; recordId: string; expected: Record<string, unknown>; data: Record<string, unknown> }
  | { action: 'delete'; recordId: string; expected: Record<string, unknown> };

/** One entry of a committed sync batch, in request order: 200 + the saved record, or 204 + null. */
export interface ServerSyncEntry {
  status: number;
  body: Record<string, unknown> | null;
}

/** Wiki document types (`wiki_documents.documentType`): "SOP Manual" and "Quick Guide". */
export type WikiDocumentType = 'sop' | 'cheatsheet';

/** GET /api/relay/wiki/search parameters (`q` <= 120 characters, not only function words). */
export interface WikiSearchQuery {
  q: string;
  documentId?: string;
  categoryId?: string;
  documentType?: WikiDocumentType;
  limit?: number;
}

/** One matching passage of GET /api/relay/wiki/search (plain text; never HTML). */
export interface WikiSearchHit {
  documentId: string;
  title: string;
  /** 1-based. */
  pageNumber: number;
  /** The outline heading the page falls under, or ''. */
  heading: string;
  matchKind: 'exact' | 'tokens' | 'prefix' | 'fuzzy';
  excerpt: string;
  /** `[start, end)` ranges of `excerpt` in characters (Unicode code points), not UTF-16 units. */
  highlights: [number, number][];
}

/**
 * GET /api/relay/wiki/documents/{id}/pdf: the bytes as received and the server's
 * `X-Relay-Checksum` (SHA-256 hex) when the response exposes it (a desktop window reads the
 * server cross-origin, where it is not exposed: null). Nothing here has checked either.
 */
export interface WikiPdf {
  bytes: ArrayBuffer;
  checksum: string | null;
}

export interface RealtimeEvent<T = any> {
  action: RealtimeAction;
  record: T;
}

/** The two logos the server keeps: read by any signed-in client
 * (`GET /api/relay/branding/logo/{kind}`), set and removed on the server PC's Administration
 * screen (the desktop bridge's `admin_set_logo` / `admin_remove_logo`). */
export type LogoKind = 'company' | 'footer';

export interface Transport {
  /** Authenticates as the shared `relay` user. Rejects with TransportError. */
  signIn(passphrase: string): Promise<void>;
  signOut(): void;
  /** Desktop client mode: signs in with the passphrase remembered by the shell (never seen here). */
  signInWithSaved?(): Promise<void>;
  /** True when the transport starts with credentials (a desktop popout adopting the main window's session). */
  isSignedIn?(): boolean;
  /** Relay Web after a reload: signs in again from the surviving session cookie; false when there is none. */
  resumeSession?(): Promise<boolean>;
  list<T>(collection: string, opts?: ListOptions): Promise<ListResult<T>>;
  getFullList<T>(collection: string, opts?: FullListOptions): Promise<T[]>;
  create<T>(collection: string, data: object): Promise<T>;
  update<T>(collection: string, id: string, data: object): Promise<T>;
  remove(collection: string, id: string): Promise<void>;
  /** Realtime topic `${collection}/*`. Resolves with an unsubscribe function. */
  subscribe(collection: string, cb: (e: RealtimeEvent) => void): Promise<() => void>;
  /** Calls `cb` immediately with the current state, then on every change. */
  onStateChange(cb: (s: ConnectionState) => void): () => void;
  /** GET /api/relay/health: the System health dashboard (read-only; every mode, when signed in). */
  health(): Promise<SystemHealth>;
  /** POST /api/relay/presence/heartbeat `{tabId, hostname}`: this tab's row, with its presence id. */
  heartbeat(tabId: string, hostname: string): Promise<PresenceHeartbeat>;
  /** GET /api/relay/presence */
  presence(): Promise<PresenceSnapshot>;
  /**
   * POST /api/relay/import/{collection}: preview (apply=false) or apply. Resolves with the
   * report also when the server refused to apply (400 with a report body).
   */
  importRecords(collection: string, records: object[], apply: boolean): Promise<ImportReport>;
  /**
   * POST /api/relay/spreadsheet/rows?sheet=: the raw bytes of an .xlsx workbook (<= 25 MB; a
   * gateway write like any other) read by the server into the sheet named `sheet` (ignoring
   * case), else the workbook's only sheet. Rejects with a TransportError carrying the server's
   * operator-facing message: 413 too large, 415 not a workbook, 422 which sheet / empty sheet /
   * repeated or unnamed column / too many rows, columns or cells / a cell error / damaged, 503 busy.
   */
  readSpreadsheet(file: Blob, sheet: string): Promise<SpreadsheetRows>;
  /**
   * POST /api/relay/images/alert-body: the raw bytes of a PNG, JPEG or WebP image (<= 5 MiB; a
   * gateway write like any other) prepared by the server for an alert body: at most 516 px wide,
   * a PNG stays PNG, anything else becomes JPEG. Resolves with its data URL
   * (`data:image/png;base64,…` or `data:image/jpeg;base64,…`). Rejects with a TransportError
   * carrying the server's operator-facing message: 413 too large, 415 not a PNG, JPEG or WebP,
   * 422 too many pixels / truncated / animated / damaged, 503 busy.
   */
  prepareAlertImage(file: Blob): Promise<string>;
  /** GET /api/relay/status: the service-status snapshot (every mode, when signed in). */
  serviceStatus(): Promise<ServiceStatus>;
  /**
   * POST /api/relay/status/refresh: asks the server to poll the feeds now. Rejects with a
   * 'rate-limited' TransportError (retryAfterSeconds) when a manual refresh ran < 30 s ago.
   */
  refreshServiceStatus(): Promise<StatusRefresh>;
  /**
   * GET /api/relay/branding/logo/{kind}: the stored logo (an `image/png` Blob; every mode, when
   * signed in), or null when none is set (404). Rejects with a TransportError otherwise.
   */
  brandingLogo(kind: LogoKind): Promise<Blob | null>;
  /**
   * GET /api/relay/wiki/search: passages of active Wiki documents (every mode, when signed in).
   * Rejects with an 'invalid' TransportError (400, the server's message) for a query of only
   * function words or over 120 characters, 'aborted' when `signal` fired.
   */
  wikiSearch(query: WikiSearchQuery, signal?: AbortSignal): Promise<WikiSearchHit[]>;
  /** GET /api/relay/wiki/documents/{id}/pdf: the whole PDF (see WikiPdf; 'not-found' once trashed). */
  wikiPdf(documentId: string, signal?: AbortSignal): Promise<WikiPdf>;
  /** GET /api/relay/wiki/documents/{id}/cover: the cover PNG, or null when the document has none (404). */
  wikiCover(documentId: string, signal?: AbortSignal): Promise<Blob | null>;
  /** GET /api/relay/radar: the last Radar snapshot the server read (every mode, when signed in). */
  radar(): Promise<RadarSnapshot>;
  /**
   * POST /api/relay/radar/refresh: the server reads the page now and answers the snapshot after
   * the read. Rejects with a 'rate-limited' TransportError (retryAfterSeconds) after 12 a minute.
   */
  refreshRadar(): Promise<RadarSnapshot>;
  /**
   * POST /api/relay/servers/sync: one all-or-nothing Servers sync batch (1 to 100 operations,
   * body <= 4 MiB; a gateway write like any other). Rejects with a TransportError: 409 when a
   * reviewed record changed, 400 when a write fails validation (`ServerSyncRefusal` names the
   * operation), 404 from a server without the route.
   */
  syncServers(operations: ServerSyncOperation[]): Promise<ServerSyncEntry[]>;
  /**
   * An opaque key for the credentials in use (the account and the generation of its token), or
   * null when signed out: it changes whenever the token is replaced or cleared.
   */
  authIdentity(): string | null;
  /**
   * Opens a Dynatrace dashboard (a URL already validated by features/dynatrace/dashboards): in the
   * desktop main window the shell's own Dynatrace window (`open_dynatrace`; resolves with its
   * window label), elsewhere a new browser tab with noopener (resolves with null). Rejects with
   * the shell's refusal, or in a desktop auxiliary window (the command is main-window only).
   */
  openDynatraceDashboard(url: string, key?: string): Promise<string | null>;
  /**
   * Desktop main window only: clears the Dynatrace windows' browsing storage (sign-in cookies;
   * `clear_dynatrace_session`). Absent elsewhere: in a browser that storage is the user's own.
   */
  readonly clearDynatraceSession?: () => Promise<void>;
  /**
   * Desktop main window only: each dashboard popout's state by dashboard key (`live`,
   * `authenticating`, `blocked`, `closed`; `dynatrace_popouts`). Absent elsewhere.
   */
  readonly dynatracePopouts?: () => Promise<Record<string, string>>;
  /** Desktop main window only: closes one dashboard's popout (`close_dynatrace`). Absent elsewhere. */
  readonly closeDynatraceDashboard?: (key: string) => Promise<void>;
  /**
   * Desktop main window only: opens the Radar sign-in window (`open_radar_sign_in`; server mode,
   * an isolated browser store held to the Radar origin). Absent elsewhere.
   */
  readonly openRadarSignIn?: () => Promise<void>;
  /**
   * Desktop main window only: hands the sign-in window's Radar session to the server and closes
   * it (`finish_radar_sign_in`); resolves with whether the Radar still asks for a sign-in.
   */
  readonly finishRadarSignIn?: () => Promise<{ signInRequired: boolean; error: string | null }>;
  /**
   * Desktop main window only: tells the shell, once per page, that the signed-in shell has
   * mounted (`shell_mounted`, the recovery launcher's health link). Absent elsewhere: browsers
   * and desktop popouts never call it.
   */
  readonly shellMounted?: () => void;
  /** Where this transport's data lives, for display (the server origin for the web build). */
  readonly serverUrl: string;
  /**
   * How the renderer reaches Relay: 'direct' (the data API, app-user sign-in), 'desktop' (the
   * same, from the Tauri window to the server URL its bridge reports) or 'relay-web' (the Relay
   * Web gateway: cookie session + CSRF, cleartext HTTP on a LAN/VPN). Absent = direct.
   */
  readonly mode?: TransportMode;
  /**
   * Relay Web only: one same-origin request to a gateway route outside the SDK (`path` like
   * `/web/api/protected/status`) with the session cookie and, on writes, the CSRF token; the
   * gateway's own refusals (web session expired, CSRF rotated) go through the same recovery as
   * every other request. Resolves with the response as is otherwise. Absent elsewhere.
   */
  readonly webFetch?: (path: string, init?: RequestInit) => Promise<Response>;
  /**
   * Fires when the underlying client/credentials were replaced in place (e.g. re-authentication
   * after a gateway 401): data fetched before may be stale and the connection generation moves on.
   */
  onClientReset?(cb: () => void): () => void;
  /**
   * Desktop client mode (main window) only: the shell's offline cache and write queue, so the
   * app keeps working through a server outage. Absent in a browser, on Relay Web and in a
   * server-mode desktop (never offline from itself).
   */
  readonly offline?: OfflineBridge | null;
  /**
   * A browser on the data API only (mode 'direct'): whether this server also runs Relay Web and
   * on which port (`GET /api/relay/access`, public). Absent in the desktop and on Relay Web.
   */
  relayAccess?(): Promise<RelayAccess>;
  /**
   * A browser on the data API only: the in-memory app token, handed to a pop-out this window
   * opened (lib/sessionHandoff) so it does not ask for the passphrase again; null when signed out.
   */
  sessionToken?(): string | null;
  /** Adopts a token handed over by the window that opened this one (desktop popouts and pop-outs). */
  adoptSession?(token: string): void;
}

/** `GET /api/relay/access`: Relay Web's port and a host name it accepts, or null when it does not run. */
export interface RelayAccess {
  relayWeb: { port: number; host: string } | null;
}

export type TransportMode = 'direct' | 'desktop' | 'relay-web';

/** How one offline replay ended (`offline_replay`, and `lastReplay` in the status). */
export interface ReplayReport {
  total: number;
  synced: number;
  conflicts: number;
  failed: number;
  /** Why the replay stopped before the end (e.g. the server went away again), or null. */
  stopped: string | null;
}

/** `offline_status`: the shell's write queue and cache, in words fit for the status bar. */
export interface OfflineStatus {
  /** Queued changes not yet on the server. */
  pendingCount: number;
  /** Queued changes that need the operator (a server conflict or a failed save). */
  issueCount: number;
  replaying: boolean;
  /** [done, total] while a replay runs. */
  progress: [number, number] | null;
  lastError: string | null;
  lastReplay: ReplayReport | null;
  /** The cache or queue could not be kept on disk (operator text), or null. */
  storageNotice: string | null;
}

/** `offline_cache_read`: a collection's online snapshot with the queued changes applied. */
export interface CachedCollection<T = unknown> {
  records: T[];
  /** When the snapshot was fetched from the server (epoch ms). */
  fetchedAtMs: number;
}

export type OfflineAction = 'create' | 'update' | 'delete';

/** One offline write (`offline_mutate`); update/delete name a cached record's 15-char id. */
export interface OfflineMutation {
  collection: string;
  action: OfflineAction;
  recordId?: string;
  data?: object;
}

export interface OfflineMutationResult {
  mutationId: string;
  changeId: number | null;
  recordId: string;
  /** The optimistic record to show; null for a delete (or a create cancelled by its delete). */
  record: unknown;
  pendingCount: number;
}

/** One queued change in the review list (`pending_changes` list). */
export interface PendingChange {
  id: number;
  collection: string;
  action: OfflineAction;
  recordId: string;
  label: string;
  /** 'Waiting to sync', 'Server conflict' or 'Could not save. Retry or review current server values.' */
  reason: string;
}

export interface PendingPage {
  items: PendingChange[];
  /** Pass as `afterId` for the next page; null on the last page. */
  nextAfterId: number | null;
}

/** The server's copy of a reviewed record, as the shell could read it. */
export type ServerCopy =
  | { state: 'present'; record: Record<string, unknown> }
  | { state: 'deleted' }
  | { state: 'unavailable' };

/** `pending_changes` review: the change, its local copy and the server's (token single-use, 10 min). */
export interface ChangeReview {
  token: string;
  change: Record<string, unknown>;
  local: Record<string, unknown> | null;
  server: ServerCopy;
}

/** 'server' drops the local change; 'retry' queues it again (with `edits` to scalar fields). */
export type Resolution = 'server' | 'retry';

/** The most records `offline_cache_put` keeps for one collection. */
export const OFFLINE_CACHE_MAX_RECORDS = 100_000;

/** The desktop shell's Dynatrace window commands (main window only). */
export interface DynatraceBridge {
  /** `open_dynatrace { url }`: opens (or focuses) the dashboard's window; resolves with its label. */
  openDynatrace(url: string, key?: string): Promise<string | null>;
  /** `clear_dynatrace_session`: clears the Dynatrace windows' browsing storage. */
  clearDynatraceSession(): Promise<void>;
  /** `dynatrace_popouts`: each dashboard popout's state by key. */
  popouts(): Promise<Record<string, string>>;
  /** `close_dynatrace { key }`: closes one dashboard's popout. */
  close(key: string): Promise<void>;
  /** `open_radar_sign_in`: the Radar sign-in window (server mode). */
  openRadarSignIn(): Promise<void>;
  /** `finish_radar_sign_in`: hands its session to the server's Radar reader. */
  finishRadarSignIn(): Promise<{ signInRequired: boolean; error: string | null }>;
}

/** The desktop shell's offline commands (app/desktop: cache, queue, replay and review). */
export interface OfflineBridge {
  status(): Promise<OfflineStatus>;
  /** At most OFFLINE_CACHE_MAX_RECORDS records. */
  cachePut(collection: string, records: readonly unknown[]): Promise<void>;
  /** null: nothing cached for this collection yet. */
  cacheRead<T>(collection: string): Promise<CachedCollection<T> | null>;
  mutate(mutation: OfflineMutation): Promise<OfflineMutationResult>;
  /** Replays the queue (joins a replay already running). */
  replay(): Promise<ReplayReport>;
  pendingChanges(afterId?: number): Promise<PendingPage>;
  reviewChange(id: number): Promise<ChangeReview>;
  resolveChange(token: string, resolution: Resolution, edits?: Record<string, unknown>): Promise<void>;
}

/**
 * What went wrong, in the UI's terms:
 * - network: the server could not be reached (or timed out)
 * - aborted: the request was cancelled by the caller
 * - rejected: the server definitively refused the credentials / token
 * - rate-limited: 429; see retryAfterSeconds
 * - invalid: 400 validation failure; see fieldErrors
 * - not-found: 404
 * - server: anything else the server answered with
 */
export type TransportErrorKind =
  | 'network'
  | 'aborted'
  | 'rejected'
  | 'rate-limited'
  | 'invalid'
  | 'not-found'
  | 'server';

export interface FieldError {
  code: string;
  message: string;
}

export class TransportError extends Error {
  readonly kind: TransportErrorKind;
  /** HTTP status, 0 when no response arrived. */
  readonly status: number;
  readonly fieldErrors: Record<string, FieldError>;
  /** Seconds to wait before retrying (429 + Retry-After), if the server said. */
  readonly retryAfterSeconds?: number;

  constructor(init: {
    kind: TransportErrorKind;
    status: number;
    message: string;
    fieldErrors?: Record<string, FieldError>;
    retryAfterSeconds?: number;
  }) {
    super(init.message);
    this.name = 'TransportError';
    this.kind = init.kind;
    this.status = init.status;
    this.fieldErrors = init.fieldErrors ?? {};
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

export function isTransportError(e: unknown): e is TransportError {
  return e instanceof TransportError;
}

/** A 400 from the Servers sync route: `operation` is the 0-based index of the refused operation. */
export class ServerSyncRefusal extends TransportError {
  readonly operation: number;

  constructor(init: ConstructorParameters<typeof TransportError>[0] & { operation: number }) {
    super(init);
    this.name = 'ServerSyncRefusal';
    this.operation = init.operation;
  }
}
