// PocketBaseTransport: the browser Transport, built on the official pocketbase
// SDK against the page's own origin. Owns the in-memory auth token, the
// health probe, realtime multiplexing and feeding the ConnectionTracker.
// Three modes: 'direct' (data API, app-user password sign-in), 'desktop' (the same against the
// server URL the Tauri bridge reports, see ./desktop) and 'relay-web' (the Relay Web gateway:
// cookie session + CSRF via WebSession, app token from /web/api/connection; `webFetch` carries the
// same plumbing to the gateway's own routes, e.g. the protected session's).
import PocketBase, { BaseAuthStore, getTokenPayload, type RecordSubscription } from 'pocketbase';
import { ConnectionTracker, PROBE_TIMEOUT_MS, probeIntervalMs } from './connection';
import { RETRY_AFTER_FIELD, fromBridgeError, pickFieldErrors, toTransportError } from './pbErrors';
import { parseRetryAfter } from './retryAfter';
import { CSRF_HEADER, WebSession, type WebModeInfo } from './webSession';
import type {
  ConnectionState,
  TransportMode,
  FullListOptions,
  ImportReport,
  PresenceHeartbeat,
  PresenceSnapshot,
  ListOptions,
  ListResult,
  LogoKind,
  DynatraceBridge,
  OfflineBridge,
  RadarSnapshot,
  RelayAccess,
  RealtimeEvent,
  ServerSyncEntry,
  ServerSyncOperation,
  ServiceStatus,
  SpreadsheetRows,
  StatusRefresh,
  SystemHealth,
  Transport,
  WikiPdf,
  WikiSearchHit,
  WikiSearchQuery,
} from './types';
import { ServerSyncRefusal, TransportError } from './types';

export const AUTH_COLLECTION = 'users';
export const AUTH_IDENTITY = 'relay';
export const PROBE_PATH = '/api/health';
export const HEALTH_PATH = '/api/relay/health';
export const LEGACY_TOKEN_KEY = 'pocketbase_auth';
export const PRESENCE_PATH = '/api/relay/presence';
export const HEARTBEAT_PATH = '/api/relay/presence/heartbeat';
export const IMPORT_PATH = '/api/relay/import/';
export const STATUS_PATH = '/api/relay/status';
export const STATUS_REFRESH_PATH = '/api/relay/status/refresh';
export const RADAR_PATH = '/api/relay/radar';
export const RADAR_REFRESH_PATH = '/api/relay/radar/refresh';
export const RELAY_ACCESS_PATH = '/api/relay/access';
export const BRANDING_LOGO_PATH = '/api/relay/branding/logo/';
export const SERVERS_SYNC_PATH = '/api/relay/servers/sync';
export const SPREADSHEET_ROWS_PATH = '/api/relay/spreadsheet/rows';
export const ALERT_IMAGE_PATH = '/api/relay/images/alert-body';
export const WIKI_SEARCH_PATH = '/api/relay/wiki/search';
export const WIKI_DOCUMENTS_PATH = '/api/relay/wiki/documents/';
export const XLSX_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
/** Records per page when fetching a whole collection. */
export const FULL_LIST_BATCH = 1000;
/** Records per page when fetching a whole collection whose records can be large (an alert's or
 * a reminder's HTML body up to 750 KB, a Wiki outline up to 1 MB, a status feed's items, a
 * conflict's overwritten copy, a problem's entities): 1,000 of those would be a response of up
 * to a gigabyte. The server streams any page in bounded batches (#39.5); this bounds what one
 * response asks of the browser and of the connection. */
export const LARGE_RECORD_BATCH = 50;
const LARGE_RECORD_COLLECTIONS: ReadonlySet<string> = new Set([
  'alert_history',
  'alert_reminders',
  'wiki_documents',
  'cloud_status',
  'conflict_log',
  'dynatrace_problems',
]);

/** The page size `getFullList` reads `collection` with. */
export function fullListBatch(collection: string): number {
  return LARGE_RECORD_COLLECTIONS.has(collection) ? LARGE_RECORD_BATCH : FULL_LIST_BATCH;
}

type FetchFn = (url: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
type Listener = (e: RealtimeEvent) => void;

export interface PocketBaseTransportOptions {
  /** Server origin; defaults to the page's own origin. */
  origin?: string;
  /** Injected fetch (tests); defaults to the global fetch at call time. */
  fetch?: FetchFn;
  /** Where a legacy persisted token may live; defaults to localStorage when present. */
  storage?: Pick<Storage, 'removeItem'> | null;
  now?: () => number;
  /** Set when /web/api/mode said this origin is the Relay Web gateway. */
  web?: WebModeInfo | null;
  /** Inside the Tauri desktop shell: `origin` is the bridge's server URL (direct-mode protocol). */
  desktop?: boolean;
  /**
   * Desktop main window: told the current token after every sign-in or refresh and null on
   * sign-out, so the shell can open auxiliary windows signed in (`share_session`).
   */
  onSession?: (token: string | null) => void;
  /**
   * Desktop client mode: sign in through the shell (`sign_in`, the shared AuthCoordinator);
   * `null` asks it to use the passphrase remembered in the OS secret store. Resolves with the
   * shell's answer (`{ token }`); rejects with the bridge's `{ code, message }`.
   */
  shellSignIn?: (passphrase: string | null) => Promise<unknown>;
  /** Where online/offline events come from; defaults to window when present. */
  events?: Pick<Window, 'addEventListener' | 'removeEventListener'> | null;
  /** Desktop client mode (main window): the shell's offline cache and write queue. */
  offline?: OfflineBridge | null;
  /** Desktop main window: the shell's Dynatrace and Radar sign-in window commands. */
  dynatrace?: DynatraceBridge | null;
  /** Where a web Dynatrace dashboard opens (`open`); defaults to the global window. */
  opener?: Pick<Window, 'open'> | null;
  /** Desktop main window: reports the signed-in shell's mount to the shell (see Transport.shellMounted). */
  shellMounted?: () => void;
}

interface Topic {
  collection: string;
  listeners: Set<Listener>;
  sdkUnsub?: () => Promise<void>;
  attaching?: Promise<void>;
}

/** A gateway refusal of the web session itself (not of the protected session behind it): any
 * 401 but the protected `rejected`, or a 403 `csrf`. Reads a clone: the body stays unread. */
async function isGatewayRefusal(res: Response): Promise<boolean> {
  if (res.status !== 401 && res.status !== 403) return false;
  const body = (await res.clone().json().catch(() => null)) as { data?: { code?: unknown } } | null;
  const code = body && typeof body === 'object' ? body.data?.code : undefined;
  return res.status === 401 ? code !== 'rejected' : code === 'csrf';
}

function defaultStorage(): Pick<Storage, 'removeItem'> | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null; // access can throw when storage is disabled
  }
}

function only<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export class PocketBaseTransport implements Transport {
  readonly pb: PocketBase;
  private readonly conn = new ConnectionTracker();
  private readonly fetchImpl?: FetchFn;
  private readonly now: () => number;
  private readonly topics = new Map<string, Topic>();
  private probing = false;
  private probeTimer?: ReturnType<typeof setTimeout>;
  /** Relay Web session (gateway mode only). */
  readonly web: WebSession | null;
  readonly mode: TransportMode;
  readonly offline: OfflineBridge | null;
  readonly clearDynatraceSession?: () => Promise<void>;
  readonly dynatracePopouts?: () => Promise<Record<string, string>>;
  readonly closeDynatraceDashboard?: (key: string) => Promise<void>;
  readonly openRadarSignIn?: () => Promise<void>;
  readonly finishRadarSignIn?: () => Promise<{ signInRequired: boolean; error: string | null }>;
  readonly shellMounted?: () => void;
  readonly webFetch?: (path: string, init?: RequestInit) => Promise<Response>;
  private readonly dynatrace: DynatraceBridge | null;
  private readonly opener: Pick<Window, 'open'> | null;
  private readonly shellSignIn?: (passphrase: string | null) => Promise<unknown>;
  private readonly resetListeners = new Set<() => void>();
  private resuming: Promise<boolean> | null = null;
  /** Grows on every token change (sign-in, refresh, re-authentication, sign-out): see authIdentity. */
  private tokenGeneration = 0;
  private readonly events: Pick<Window, 'addEventListener' | 'removeEventListener'> | null;
  private readonly onOffline = () => this.conn.dispatch({ type: 'network-error' });
  private readonly onOnline = () => {
    if (this.probing) void this.probe().finally(() => this.scheduleProbe());
  };

  constructor(opts: PocketBaseTransportOptions = {}) {
    const storage = opts.storage === undefined ? defaultStorage() : opts.storage;
    try {
      storage?.removeItem(LEGACY_TOKEN_KEY); // never keep a persisted token around
    } catch {
      /* storage unavailable: nothing to clean */
    }
    this.fetchImpl = opts.fetch;
    this.now = opts.now ?? Date.now;
    const origin = opts.origin ?? window.location.origin;
    this.pb = new PocketBase(origin, new BaseAuthStore());
    this.pb.autoCancellation(false);
    this.mode = opts.web ? 'relay-web' : opts.desktop ? 'desktop' : 'direct';
    this.shellSignIn = opts.shellSignIn;
    if (opts.shellMounted) this.shellMounted = opts.shellMounted;
    this.offline = opts.offline ?? null;
    this.dynatrace = opts.dynatrace ?? null;
    this.opener = opts.opener !== undefined ? opts.opener : typeof window === 'undefined' ? null : window;
    const dynatrace = this.dynatrace;
    if (dynatrace) {
      this.clearDynatraceSession = () => dynatrace.clearDynatraceSession();
      this.dynatracePopouts = () => dynatrace.popouts();
      this.closeDynatraceDashboard = (key) => dynatrace.close(key);
      this.openRadarSignIn = () => dynatrace.openRadarSignIn();
      this.finishRadarSignIn = () => dynatrace.finishRadarSignIn();
    }
    this.pb.authStore.onChange(() => {
      this.tokenGeneration++;
    });
    const onSession = opts.onSession;
    if (onSession) this.pb.authStore.onChange((token) => onSession(token === '' ? null : token));
    this.web = opts.web
      ? new WebSession(origin, () => this.fetchImpl ?? fetch, {
          installToken: (token, record) => this.pb.authStore.save(token, record as never),
          rejected: () => {
            this.pb.authStore.clear();
            this.conn.dispatch({ type: 'auth-rejected' });
          },
          unreachable: () => this.conn.dispatch({ type: 'network-error' }),
          replaced: () => {
            for (const l of [...this.resetListeners]) l();
          },
        }, this.now)
      : null;
    if (this.web) this.webFetch = (path, init) => this.gatewayFetch(path, init);
    this.pb.beforeSend = (url, options) => {
      const method = (options.method ?? 'GET').toUpperCase();
      const csrf = this.web?.csrfToken;
      // Gateway writes carry the CSRF token (the browser adds the same-origin Origin itself).
      const headers = csrf && method !== 'GET' ? { ...options.headers, [CSRF_HEADER]: csrf } : options.headers;
      return {
        url,
        options: { ...options, headers, fetch: (u: RequestInfo | URL, init?: RequestInit) => this.observedFetch(url, u, init) },
      };
    };
    this.pb.afterSend = (response: Response, data: unknown) => {
      if (response.status !== 429) return data;
      const secs = parseRetryAfter(response.headers.get('Retry-After'), this.now());
      return { ...(data && typeof data === 'object' ? data : {}), [RETRY_AFTER_FIELD]: secs };
    };
    this.pb.realtime.onDisconnect = (active) => {
      this.conn.dispatch({ type: active.length > 0 ? 'realtime-lost' : 'realtime-idle' });
    };
    // Faster probing as soon as we leave 'connected', slower once back.
    this.conn.subscribe(() => this.scheduleProbe());
    // The browser knows first when the network goes: go offline at once, probe as soon as it is back.
    this.events = opts.events === undefined ? (typeof window === 'undefined' ? null : window) : opts.events;
    this.events?.addEventListener('offline', this.onOffline);
    this.events?.addEventListener('online', this.onOnline);
  }

  onClientReset(cb: () => void): () => void {
    this.resetListeners.add(cb);
    return () => {
      this.resetListeners.delete(cb);
    };
  }

  get state(): ConnectionState {
    return this.conn.state;
  }

  async signIn(passphrase: string): Promise<void> {
    const shell = this.shellSignIn;
    await this.runSignIn(async () => {
      if (this.web) await this.web.signIn(passphrase);
      else if (shell) await this.adoptShellToken(shell(passphrase));
      else await this.pb.collection(AUTH_COLLECTION).authWithPassword(AUTH_IDENTITY, passphrase, { requestKey: null });
    });
  }

  /** Desktop client mode: signs in with the passphrase the shell remembered (never seen here). */
  async signInWithSaved(): Promise<void> {
    const shell = this.shellSignIn;
    if (!shell) throw new TransportError({ kind: 'invalid', status: 0, message: 'No remembered passphrase here.' });
    await this.runSignIn(() => this.adoptShellToken(shell(null)));
  }

  private async adoptShellToken(answer: Promise<unknown>): Promise<void> {
    let reply: unknown;
    try {
      reply = await answer;
    } catch (err) {
      throw fromBridgeError(err);
    }
    const token = (reply as { token?: unknown } | null)?.token;
    if (typeof token !== 'string' || token === '') {
      throw new TransportError({ kind: 'server', status: 0, message: 'The desktop shell returned no token.' });
    }
    this.pb.authStore.save(token, null);
  }

  private async runSignIn(attempt: () => Promise<void>): Promise<void> {
    this.probing = true;
    this.conn.dispatch({ type: 'sign-in-start' });
    try {
      await attempt();
    } catch (err) {
      const te = toTransportError(err, { signIn: true });
      if (te.kind === 'rejected') this.conn.dispatch({ type: 'auth-rejected' });
      else this.conn.dispatch({ type: 'sign-in-inconclusive', reachable: te.kind !== 'network' });
      this.scheduleProbe();
      throw te;
    }
    this.conn.dispatch({ type: 'sign-in-ok' });
    this.scheduleProbe();
  }

  /**
   * Relay Web after a page reload: signs in again from the surviving HttpOnly session cookie
   * (see WebSession.resume) without asking for the passphrase. Single-flight; resolves false
   * outside Relay Web or when there is no live session to resume.
   */
  resumeSession(): Promise<boolean> {
    const web = this.web;
    if (!web) return Promise.resolve(false);
    this.resuming ??= web.resume().then((ok) => {
      this.resuming = null;
      if (ok) {
        this.probing = true;
        this.conn.dispatch({ type: 'sign-in-ok' });
        this.scheduleProbe();
      }
      return ok;
    });
    return this.resuming;
  }

  /**
   * Desktop auxiliary window: starts signed in with the main window's token (`aux_session`).
   * A later 401 moves the connection to auth-failed like any rejected token.
   */
  adoptSession(token: string): void {
    this.pb.authStore.save(token, null);
    this.probing = true;
    this.conn.dispatch({ type: 'sign-in-ok' });
    this.scheduleProbe();
  }

  /** See Transport.openDynatraceDashboard. */
  async openDynatraceDashboard(url: string, key?: string): Promise<string | null> {
    if (this.dynatrace) return this.dynatrace.openDynatrace(url, key);
    if (this.mode === 'desktop') throw new Error('Open Dynatrace dashboards from the main Relay window.');
    if (!this.opener) throw new Error('This browser cannot open a new tab here.');
    this.opener.open(url, '_blank', 'noopener,noreferrer');
    return null;
  }

  authIdentity(): string | null {
    const store = this.pb.authStore;
    if (store.token === '') return null;
    const account = store.record?.id ?? getTokenPayload(store.token).id;
    return `${typeof account === 'string' ? account : ''}#${this.tokenGeneration}`;
  }

  isSignedIn(): boolean {
    return this.pb.authStore.token !== '';
  }

  signOut(): void {
    this.web?.signOut(); // logout + in-flight refreshes can no longer install anything
    this.probing = false;
    clearTimeout(this.probeTimer);
    for (const t of this.topics.values()) void t.sdkUnsub?.().catch(() => {});
    this.topics.clear();
    void this.pb.realtime.unsubscribe().catch(() => {});
    this.pb.authStore.clear();
    this.conn.dispatch({ type: 'signed-out' });
  }

  /** Stops timers and subscriptions (tests, teardown). */
  dispose(): void {
    this.signOut();
    this.events?.removeEventListener('offline', this.onOffline);
    this.events?.removeEventListener('online', this.onOnline);
  }

  async list<T>(collection: string, opts: ListOptions = {}): Promise<ListResult<T>> {
    const r = await this.call(() =>
      this.pb
        .collection(collection)
        .getList<T>(opts.page ?? 1, opts.perPage ?? 50, { ...only({ filter: opts.filter, sort: opts.sort }), requestKey: null }),
    );
    return { items: r.items, totalItems: r.totalItems, page: r.page, perPage: r.perPage, totalPages: r.totalPages };
  }

  getFullList<T>(collection: string, opts: FullListOptions = {}): Promise<T[]> {
    return this.call(() =>
      this.pb
        .collection(collection)
        .getFullList<T>({ ...only({ filter: opts.filter, sort: opts.sort }), batch: fullListBatch(collection), requestKey: null }),
    );
  }

  create<T>(collection: string, data: object): Promise<T> {
    return this.call(() => this.pb.collection(collection).create<T>(data, { requestKey: null }));
  }

  update<T>(collection: string, id: string, data: object): Promise<T> {
    return this.call(() => this.pb.collection(collection).update<T>(id, data, { requestKey: null }));
  }

  async remove(collection: string, id: string): Promise<void> {
    await this.call(() => this.pb.collection(collection).delete(id, { requestKey: null }));
  }

  health(): Promise<SystemHealth> {
    return this.call(() => this.pb.send<SystemHealth>(HEALTH_PATH, { method: 'GET', requestKey: null }));
  }

  get serverUrl(): string {
    return this.pb.baseURL;
  }

  heartbeat(tabId: string, hostname: string): Promise<PresenceHeartbeat> {
    return this.call(() =>
      this.pb.send<PresenceHeartbeat>(HEARTBEAT_PATH, { method: 'POST', body: { tabId, hostname }, requestKey: null }),
    );
  }

  presence(): Promise<PresenceSnapshot> {
    return this.call(() => this.pb.send<PresenceSnapshot>(PRESENCE_PATH, { method: 'GET', requestKey: null }));
  }

  serviceStatus(): Promise<ServiceStatus> {
    return this.call(() => this.pb.send<ServiceStatus>(STATUS_PATH, { method: 'GET', requestKey: null }));
  }

  /** A write: through the gateway it carries the CSRF token (beforeSend); a 429 keeps Retry-After. */
  refreshServiceStatus(): Promise<StatusRefresh> {
    return this.call(() => this.pb.send<StatusRefresh>(STATUS_REFRESH_PATH, { method: 'POST', requestKey: null }));
  }

  radar(): Promise<RadarSnapshot> {
    return this.call(() => this.pb.send<RadarSnapshot>(RADAR_PATH, { method: 'GET', requestKey: null }));
  }

  /** The logo's PNG bytes, or null when none is set (204; an older server answered 404). */
  async brandingLogo(kind: LogoKind): Promise<Blob | null> {
    const res = await this.getRaw(BRANDING_LOGO_PATH + encodeURIComponent(kind), [204, 404]);
    return res.status === 204 || res.status === 404 ? null : res.blob();
  }

  async wikiSearch(query: WikiSearchQuery, signal?: AbortSignal): Promise<WikiSearchHit[]> {
    const answer = await this.call(() =>
      this.pb.send<{ items?: unknown }>(WIKI_SEARCH_PATH, { method: 'GET', query: only({ ...query }), signal, requestKey: null }),
    );
    return Array.isArray(answer?.items) ? (answer.items as WikiSearchHit[]) : [];
  }

  async wikiPdf(documentId: string, signal?: AbortSignal): Promise<WikiPdf> {
    const res = await this.getRaw(`${WIKI_DOCUMENTS_PATH}${encodeURIComponent(documentId)}/pdf`, [], signal);
    const bytes = await res.arrayBuffer();
    return { bytes, checksum: res.headers.get('X-Relay-Checksum') };
  }

  async wikiCover(documentId: string, signal?: AbortSignal): Promise<Blob | null> {
    const res = await this.getRaw(`${WIKI_DOCUMENTS_PATH}${encodeURIComponent(documentId)}/cover`, [404], signal);
    return res.status === 404 ? null : res.blob();
  }

  /**
   * A GET whose answer is not JSON (images, PDFs), so not through `pb.send` (which reads every
   * answer as JSON): the same observed fetch with the app token, and the same error mapping for
   * any status outside 2xx and `accepted`.
   */
  private async getRaw(path: string, accepted: number[], signal?: AbortSignal): Promise<Response> {
    const url = this.pb.buildURL(path);
    const token = this.pb.authStore.token;
    let res: Response;
    try {
      res = await this.observedFetch(url, url, { method: 'GET', headers: token ? { Authorization: token } : {}, signal });
    } catch (err) {
      const aborted = (err as { name?: unknown } | null)?.name === 'AbortError';
      throw toTransportError({ status: 0, isAbort: aborted });
    }
    if (res.ok || accepted.includes(res.status)) return res;
    const body: unknown = await res.json().catch(() => ({}));
    const retry = res.status === 429 ? { [RETRY_AFTER_FIELD]: parseRetryAfter(res.headers.get('Retry-After'), this.now()) } : {};
    throw toTransportError({ status: res.status, response: { ...(body && typeof body === 'object' ? body : {}), ...retry } });
  }

  /** GET /api/relay/access (public): Relay Web's port on this server, if it runs. */
  async relayAccess(): Promise<RelayAccess> {
    const body: unknown = await (await this.getRaw(RELAY_ACCESS_PATH, [])).json();
    const web = (body as { relayWeb?: { port?: unknown; host?: unknown } | null } | null)?.relayWeb;
    const port = web?.port;
    const host = web?.host;
    const valid = typeof port === 'number' && Number.isInteger(port) && port > 0 && port < 65536 && typeof host === 'string' && /^[a-z0-9.-]{1,253}$/i.test(host);
    return { relayWeb: valid ? { port, host } : null };
  }

  /** The in-memory app token (a browser on the data API lends it to its own pop-outs). */
  sessionToken(): string | null {
    return this.pb.authStore.token === '' ? null : this.pb.authStore.token;
  }

  /** A write: through the gateway it carries the CSRF token (beforeSend); a 429 keeps Retry-After. */
  refreshRadar(): Promise<RadarSnapshot> {
    return this.call(() => this.pb.send<RadarSnapshot>(RADAR_REFRESH_PATH, { method: 'POST', requestKey: null }));
  }

  /** A write: through the gateway it carries the CSRF token (beforeSend). */
  async syncServers(operations: ServerSyncOperation[]): Promise<ServerSyncEntry[]> {
    try {
      return await this.pb.send<ServerSyncEntry[]>(SERVERS_SYNC_PATH, { method: 'POST', body: { operations }, requestKey: null });
    } catch (err) {
      const te = toTransportError(err);
      const data = (err as { response?: { data?: { operation?: unknown; fields?: unknown } } }).response?.data;
      if (te.status !== 400 || typeof data?.operation !== 'number') throw te;
      throw new ServerSyncRefusal({ kind: 'invalid', status: 400, message: te.message, fieldErrors: pickFieldErrors(data.fields), operation: data.operation });
    }
  }

  async importRecords(collection: string, records: object[], apply: boolean): Promise<ImportReport> {
    try {
      return await this.pb.send<ImportReport>(IMPORT_PATH + encodeURIComponent(collection), {
        method: 'POST',
        body: { records, apply },
        requestKey: null,
      });
    } catch (err) {
      const body = (err as { status?: number; response?: unknown }).response as Partial<ImportReport> | undefined;
      if ((err as { status?: number }).status === 400 && body && Array.isArray(body.errors)) return body as ImportReport;
      throw toTransportError(err);
    }
  }

  /** A write with a raw body (the workbook's bytes): through the gateway it carries the CSRF token (beforeSend). */
  readSpreadsheet(file: Blob, sheet: string): Promise<SpreadsheetRows> {
    return this.call(() =>
      this.pb.send<SpreadsheetRows>(SPREADSHEET_ROWS_PATH, {
        method: 'POST',
        body: file,
        query: { sheet },
        headers: { 'Content-Type': XLSX_CONTENT_TYPE },
        requestKey: null,
      }),
    );
  }

  /** A write with a raw body (the image's bytes): through the gateway it carries the CSRF token (beforeSend). */
  async prepareAlertImage(file: Blob): Promise<string> {
    const answer = await this.call(() =>
      this.pb.send<{ dataUrl?: unknown }>(ALERT_IMAGE_PATH, {
        method: 'POST',
        body: file,
        headers: { 'Content-Type': 'application/octet-stream' },
        requestKey: null,
      }),
    );
    if (typeof answer?.dataUrl !== 'string') throw new TransportError({ kind: 'server', status: 200, message: 'The server answered without an image.' });
    return answer.dataUrl;
  }

  onStateChange(cb: (s: ConnectionState) => void): () => void {
    return this.conn.subscribe(cb);
  }

  /**
   * One SDK subscription per collection, fanned out to every listener. Resolves
   * even when the realtime link is down: the transport keeps retrying on probes.
   */
  async subscribe(collection: string, cb: Listener): Promise<() => void> {
    let t = this.topics.get(collection);
    if (!t) {
      t = { collection, listeners: new Set() };
      this.topics.set(collection, t);
    }
    const listener: Listener = (e) => cb(e); // fresh identity per subscription
    t.listeners.add(listener);
    await this.attach(t);
    const topic = t;
    return () => this.release(topic, listener);
  }

  /** One health probe; exposed for tests. Returns whether the server answered OK. */
  async probe(): Promise<boolean> {
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), PROBE_TIMEOUT_MS);
    try {
      await this.pb.send(PROBE_PATH, { method: 'GET', signal: ctl.signal, requestKey: null });
      this.conn.dispatch({ type: 'server-ok' });
      this.reattachRealtime();
      return true;
    } catch {
      this.conn.dispatch({ type: 'network-error' }); // includes the 10 s timeout
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  private scheduleProbe(): void {
    clearTimeout(this.probeTimer);
    if (!this.probing) return;
    this.probeTimer = setTimeout(() => {
      void this.probe().finally(() => this.scheduleProbe());
    }, probeIntervalMs(this.conn.state));
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw toTransportError(err);
    }
  }

  /** Every SDK request goes through here, so reachability and token rejection are seen once. */
  private async observedFetch(sdkUrl: string, u: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const f = this.fetchImpl ?? fetch;
    const path = new URL(sdkUrl, 'http://x').pathname;
    let res: Response;
    try {
      res = await f(u, init);
    } catch (err) {
      const name = (err as { name?: unknown } | null)?.name;
      // The probe reports its own outcome; aborts are the caller's choice, not an outage.
      if (name !== 'AbortError' && path !== PROBE_PATH) this.conn.dispatch({ type: 'network-error' });
      throw err;
    }
    const isAuthRoute = path.endsWith('/auth-with-password');
    if (this.web && path !== PROBE_PATH) {
      res = await this.webRecover(res, f, u, init);
    } else if ((res.status === 401 || res.status === 403) && !isAuthRoute && this.conn.snapshot.auth === 'ok') {
      this.conn.dispatch({ type: 'auth-rejected' });
    } else if (res.status < 500 && !isAuthRoute && path !== PROBE_PATH) {
      this.conn.dispatch({ type: 'server-ok' });
    }
    const method = (init?.method ?? 'GET').toUpperCase();
    if (path === '/api/realtime' && method === 'POST' && res.ok && this.topics.size > 0) {
      this.conn.dispatch({ type: 'realtime-connected' });
    }
    return res;
  }

  /**
   * Relay Web: a gateway route outside the SDK (the protected session's): cookie, CSRF on writes,
   * reachability, and the gateway's own refusals through webRecover — a 401 that is not the
   * protected session's `rejected` (the web session itself is gone) or a 403 `csrf` (the token
   * rotated meanwhile). The protected session's own refusals come back as they are.
   */
  private async gatewayFetch(path: string, init: RequestInit = {}): Promise<Response> {
    const web = this.web!;
    const f = this.fetchImpl ?? fetch;
    const method = (init.method ?? 'GET').toUpperCase();
    const headers = new Headers(init.headers);
    if (!headers.has('Accept')) headers.set('Accept', 'application/json');
    if (method !== 'GET' && web.csrfToken) headers.set(CSRF_HEADER, web.csrfToken);
    const u = this.pb.baseURL.replace(/\/+$/, '') + path;
    const req: RequestInit = { ...init, method, credentials: 'same-origin', headers };
    let res: Response;
    try {
      res = await f(u, req);
    } catch (err) {
      if ((err as { name?: unknown } | null)?.name !== 'AbortError') this.conn.dispatch({ type: 'network-error' });
      throw err;
    }
    if (await isGatewayRefusal(res)) return this.webRecover(res, f, u, req, false);
    if (res.status < 500) this.conn.dispatch({ type: 'server-ok' });
    return res;
  }

  /**
   * Gateway answers that mean "credentials changed under us": a 401 (token or web session gone)
   * → one in-place re-authentication via /web/api/connection, then the request once more; a 403
   * on a write sent with a CSRF token that has since rotated → once more with the current one.
   * If /web/api/connection itself is 401 the session is over (WebSession reports the rejection).
   */
  private async webRecover(res: Response, f: FetchFn, u: RequestInfo | URL, init?: RequestInit, bearer = true): Promise<Response> {
    const web = this.web!;
    const method = (init?.method ?? 'GET').toUpperCase();
    const retry = async () => {
      const headers = new Headers(init?.headers);
      if (bearer && this.pb.authStore.token) headers.set('Authorization', this.pb.authStore.token);
      if (method !== 'GET' && web.csrfToken) headers.set(CSRF_HEADER, web.csrfToken);
      try {
        return await f(u, { ...init, headers });
      } catch (err) {
        this.conn.dispatch({ type: 'network-error' });
        throw err;
      }
    };
    const sentCsrf = new Headers(init?.headers).get(CSRF_HEADER);
    let out = res;
    if (res.status === 401 && this.conn.snapshot.auth === 'ok' && !this.conn.snapshot.rejected) {
      const outcome = await web.reauthenticate();
      if (outcome === 'network') this.conn.dispatch({ type: 'network-error' });
      if (outcome !== 'ok') return res;
      out = await retry();
      if (out.status === 401) {
        web.clear();
        this.pb.authStore.clear();
        this.conn.dispatch({ type: 'auth-rejected' });
        return out;
      }
    } else if (res.status === 403 && method !== 'GET' && web.csrfToken && sentCsrf !== web.csrfToken) {
      out = await retry();
    }
    if (out.status < 500) this.conn.dispatch({ type: 'server-ok' });
    return out;
  }

  private attach(t: Topic): Promise<void> {
    if (t.sdkUnsub) return Promise.resolve();
    t.attaching ??= this.doAttach(t).finally(() => {
      t.attaching = undefined;
    });
    return t.attaching;
  }

  private async doAttach(t: Topic): Promise<void> {
    const records = this.pb.collection(t.collection);
    try {
      const unsub = await records.subscribe('*', (e: RecordSubscription) => this.fanOut(t, e));
      if (this.topics.get(t.collection) !== t) {
        await unsub().catch(() => {}); // released while attaching
        return;
      }
      t.sdkUnsub = unsub;
      this.conn.dispatch({ type: 'realtime-connected' });
    } catch (err) {
      // The SDK keeps the listener of a failed first connect; drop it so a retry won't double it.
      await records.unsubscribe('*').catch(() => {});
      if (toTransportError(err).kind !== 'rejected') this.conn.dispatch({ type: 'realtime-lost' });
    }
  }

  private fanOut(t: Topic, e: RecordSubscription): void {
    const action = e.action as string;
    if (action !== 'create' && action !== 'update' && action !== 'delete' && action !== 'reload') return;
    const ev: RealtimeEvent = { action, record: e.record ?? { collectionName: t.collection } };
    for (const l of [...t.listeners]) l(ev);
  }

  private release(t: Topic, listener: Listener): void {
    t.listeners.delete(listener);
    if (t.listeners.size > 0) return;
    if (this.topics.get(t.collection) === t) this.topics.delete(t.collection);
    const unsub = t.sdkUnsub;
    t.sdkUnsub = undefined;
    if (unsub) void unsub().catch(() => {});
    if (this.topics.size === 0) this.conn.dispatch({ type: 'realtime-idle' });
  }

  private reattachRealtime(): void {
    if (this.conn.snapshot.rejected || this.conn.snapshot.auth !== 'ok') return;
    let pending = false;
    for (const t of this.topics.values()) {
      if (!t.sdkUnsub) {
        pending = true;
        void this.attach(t);
      }
    }
    if (!pending && this.topics.size > 0 && this.pb.realtime.isConnected) {
      this.conn.dispatch({ type: 'realtime-connected' });
    }
  }
}
