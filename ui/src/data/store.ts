// Shared live collections: one fetch + one realtime subscription per collection for the
// whole UI (People, Compose, search… all read the same contacts), exposed via hooks. In
// desktop client mode (the transport carries the shell's OfflineBridge) every online load is
// also kept in the shell's offline cache, and kept current as live changes arrive; while the server is unreachable the collections are
// read from that cache and writes are queued in the shell (their optimistic records applied
// here), and on the way back the queue is replayed before the collections reload (OfflineSync).
import { createContext, createElement, useContext, useEffect, useMemo, useSyncExternalStore, type ReactNode } from 'react';
import { TransportProvider, useTransport } from '../transport/context';
import {
  OFFLINE_CACHE_MAX_RECORDS,
  TransportError,
  type BaseRecord,
  type ConnectionState,
  type ImportReport,
  type OfflineBridge,
  type OfflineMutation,
  type PresenceHeartbeat,
  type RealtimeEvent,
  type ServerSyncEntry,
  type ServerSyncOperation,
  type Transport,
} from '../transport/types';
import { WriteGate } from './gate';
import { OfflineSync, type OfflineSyncState } from './offlineSync';
import {
  byField,
  byNumber,
  collectionReducer,
  initialCollection,
  newestFirst,
  type CollectionAction,
  type CollectionState,
  type Compare,
} from './collection';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const SORTS: Record<string, Compare<any>> = {
  contacts: byField('name'),
  servers: byField('name'),
  bridge_groups: byField('name'),
  oncall: byNumber('sortOrder'),
  standalone_notes: byNumber('sortOrder'),
  bridge_history: newestFirst,
  alert_history: newestFirst,
  alert_reminders: newestFirst,
  notes: byField('entityKey'),
  oncall_board_settings: newestFirst,
  wiki_categories: byNumber('sortOrder'),
  wiki_documents: byField('title'),
};

/**
 * Desktop client mode: how long after the last live change (realtime event or this window's
 * own write) the collection as shown is written to the offline cache again, so an outage later
 * in the shift shows, and bases offline edits on, the records as they were, not as they were
 * when the collection was first loaded.
 */
export const CACHE_REFRESH_DELAY_MS = 2000;

export class CollectionStore<T extends BaseRecord> {
  private state: CollectionState<T> = initialCollection<T>();
  private readonly listeners = new Set<() => void>();
  private readonly reduce: (s: CollectionState<T>, a: CollectionAction<T>) => CollectionState<T>;
  private started = false;
  private unsub: (() => void) | null = null;
  private loadSeq = 0;
  private lastReload = 0;
  private readonly offline: OfflineBridge | null;
  /** The connection generation whose online load is on screen (null: cache or nothing). */
  private onlineGeneration: number | null = null;
  private cacheRefresh: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly transport: Transport,
    readonly name: string,
    private readonly gate: WriteGate = new WriteGate(),
  ) {
    this.gate.track(name);
    this.reduce = collectionReducer<T>(SORTS[name] ?? newestFirst);
    this.offline = transport.offline ?? null;
  }

  get snapshot(): CollectionState<T> {
    return this.state;
  }

  dispatch(a: CollectionAction<T>): void {
    this.state = this.reduce(this.state, a);
    for (const l of [...this.listeners]) l();
    if (a.type === 'event' && a.event.action !== 'reload') this.scheduleCacheRefresh();
    if (this.state.reloadRequests !== this.lastReload) {
      this.lastReload = this.state.reloadRequests;
      this.load();
    }
  }

  subscribe = (l: () => void): (() => void) => {
    this.listeners.add(l);
    this.start();
    return () => this.listeners.delete(l);
  };

  getSnapshot = (): CollectionState<T> => this.state;

  start(): void {
    if (this.started) return;
    this.started = true;
    void this.transport
      .subscribe(this.name, (e: RealtimeEvent) => this.dispatch({ type: 'event', event: e as RealtimeEvent<T> }))
      .then((u) => {
        if (this.started) this.unsub = u;
        else u();
      })
      .catch(() => {});
    this.load();
  }

  get isStarted(): boolean {
    return this.started;
  }

  /**
   * Fetches the collection in the current connection generation. A response that arrives after
   * a newer load started, or after the generation moved on (disconnect, reconnect, new client),
   * is dropped: it neither installs data nor reopens writes. Desktop client mode: an online
   * load is also kept in the offline cache, and while the server is unreachable the collection
   * is read from that cache instead (which opens no online writes).
   */
  load(): void {
    const seq = ++this.loadSeq;
    const generation = this.gate.generation;
    const current = () => seq === this.loadSeq && this.gate.isCurrent(generation);
    const failed = (err: unknown) => {
      if (current()) this.dispatch({ type: 'failed', error: err instanceof Error ? err.message : 'Load failed.' });
    };
    this.dispatch({ type: 'sync-start' });
    const offline = this.offline;
    this.onlineGeneration = null;
    if (offline && this.gate.offline) {
      offline
        .cacheRead<T>(this.name)
        .then((cache) => {
          if (!current()) return;
          this.dispatch(cache ? { type: 'loaded', items: cache.records, cachedAtMs: cache.fetchedAtMs } : { type: 'cache-missing' });
        })
        .catch(failed);
      return;
    }
    this.transport
      .getFullList<T>(this.name)
      .then((items) => {
        if (!current()) return;
        this.dispatch({ type: 'loaded', items });
        this.gate.markReady(this.name, generation);
        this.onlineGeneration = generation;
        if (offline) this.keepOffline(offline, items);
      })
      .catch(failed);
  }

  /** True while what is shown is this generation's online load (plus live changes since). */
  private showsOnlineCopy(): boolean {
    const s = this.state;
    return this.onlineGeneration === this.gate.generation && !this.gate.offline && s.status === 'ready' && !s.syncing && s.cached === null;
  }

  /** Client mode: writes the online copy to the cache once live changes settle (debounced). */
  private scheduleCacheRefresh(): void {
    const offline = this.offline;
    if (!offline || !this.showsOnlineCopy()) return;
    if (this.cacheRefresh) clearTimeout(this.cacheRefresh);
    this.cacheRefresh = setTimeout(() => {
      this.cacheRefresh = null;
      if (this.started && this.showsOnlineCopy()) this.keepOffline(offline, this.state.items);
    }, CACHE_REFRESH_DELAY_MS);
  }

  /** Hands the online snapshot to the shell's offline cache (fire-and-forget). */
  private keepOffline(offline: OfflineBridge, items: T[]): void {
    if (items.length > OFFLINE_CACHE_MAX_RECORDS) {
      console.error(`relay offline: ${this.name} has ${items.length} records, more than the offline cache keeps`);
      return;
    }
    offline.cachePut(this.name, items).catch((err: unknown) => console.error(`relay offline: offline_cache_put ${this.name} failed`, err));
  }

  /** Local echo of our own write; the realtime copy merges as a no-op. */
  upsertLocal(record: T): void {
    this.dispatch({ type: 'event', event: { action: 'update', record } });
  }

  removeLocal(record: T): void {
    this.dispatch({ type: 'event', event: { action: 'delete', record } });
  }

  stop(): void {
    this.started = false;
    if (this.cacheRefresh) clearTimeout(this.cacheRefresh);
    this.cacheRefresh = null;
    this.unsub?.();
    this.unsub = null;
  }
}

export class DataStores {
  private readonly stores = new Map<string, CollectionStore<BaseRecord>>();
  readonly gate: WriteGate;
  /** The transport the UI writes through: writes are refused (no request) while the gate is closed. */
  readonly gated: Transport;
  /** Desktop client mode only: the shell's offline queue (status, replay, review). */
  readonly sync: OfflineSync | null;

  constructor(
    readonly transport: Transport,
    gate?: WriteGate,
  ) {
    this.gate = gate ?? new WriteGate();
    const offline = transport.offline ?? null;
    const sync = offline ? new OfflineSync(offline, { reload: () => this.reloadStarted(), reachable: () => !this.gate.offline }) : null;
    this.sync = sync;
    this.gated = gatedTransport(transport, this.gate, sync && ((m) => this.writeOffline(sync, m)));
  }

  /**
   * Follows the connection: every change into or out of 'connected' (and every client
   * replacement) starts a new generation; once connected again, every started collection is
   * refetched in that generation (events missed while away are recovered that way). Desktop
   * client mode: going offline reloads the started collections from the offline cache, and
   * once connected the queued changes are replayed before that refetch.
   */
  attach(): () => void {
    let last: ConnectionState | null = null;
    const offState = this.transport.onStateChange((s) => {
      const was = last;
      last = s;
      const bumped = this.gate.observe(s);
      if (!this.sync) {
        if (bumped && s === 'connected') this.reloadStarted();
      } else if (s === 'offline' && was !== 'offline') {
        this.reloadStarted();
      } else if (s === 'connected' && was !== 'connected') {
        void this.sync.connected(bumped);
      }
    });
    const offReset = this.transport.onClientReset?.(() => {
      this.gate.bump();
      this.reloadStarted();
    });
    this.sync?.start();
    return () => {
      offState();
      offReset?.();
      this.sync?.stop();
    };
  }

  private reloadStarted(): void {
    for (const st of this.stores.values()) if (st.isStarted) st.load();
  }

  /**
   * Client mode, server unreachable: queues the write in the shell and shows its optimistic
   * record at once (a delete removes the record). Resolves with that record (null for a delete).
   */
  private async writeOffline(sync: OfflineSync, mutation: OfflineMutation): Promise<unknown> {
    const result = await sync.mutate(mutation);
    const store = this.stores.get(mutation.collection);
    const record = result.record as BaseRecord | null;
    if (record) {
      store?.upsertLocal(record);
      return record;
    }
    store?.removeLocal({ id: result.recordId } as BaseRecord);
    if (mutation.action === 'delete') return null;
    throw new TransportError({ kind: 'server', status: 0, message: 'The desktop shell kept no record for this change.' });
  }

  get<T extends BaseRecord>(name: string): CollectionStore<T> {
    let s = this.stores.get(name);
    if (!s) {
      s = new CollectionStore<BaseRecord>(this.transport, name, this.gate);
      this.stores.set(name, s);
    }
    return s as unknown as CollectionStore<T>;
  }

  /** Stops subscriptions; a store restarts (resubscribe + refetch) when it is used again. */
  stop(): void {
    for (const s of this.stores.values()) s.stop();
  }
}

/**
 * Collections whose write rules the server enforces with a 403 (which the direct transport reads
 * as a lost session): server-owned ones take no write at all, append-only ones no update or
 * delete. The gated transport refuses those writes itself, without a request.
 */
export const SERVER_OWNED_COLLECTIONS: ReadonlySet<string> = new Set(['dynatrace_problems', 'dynatrace_problem_sync', 'wiki_categories', 'wiki_documents']);
export const APPEND_ONLY_COLLECTIONS: ReadonlySet<string> = new Set(['dynatrace_problem_notes']);
/** Create and update only (never delete). */
export const NO_DELETE_COLLECTIONS: ReadonlySet<string> = new Set(['dynatrace_problem_states']);

/** The refusal of a write the collection's rules forbid, or null. */
export function writeRuleRefusal(collection: string, action: 'create' | 'update' | 'delete'): TransportError | null {
  const forbidden =
    SERVER_OWNED_COLLECTIONS.has(collection) ||
    (action !== 'create' && APPEND_ONLY_COLLECTIONS.has(collection)) ||
    (action === 'delete' && NO_DELETE_COLLECTIONS.has(collection));
  return forbidden ? new TransportError({ kind: 'invalid', status: 0, message: `Relay does not ${action} records in ${collection}.` }) : null;
}

/**
 * The same transport, with create/update/remove/import/sync refused (no request) while the gate is
 * closed, and writes the collection's rules forbid refused always (see `writeRuleRefusal`). With `queue` (desktop client mode), create/update/remove go to the shell's offline
 * queue instead while the server is unreachable; import and sync are still refused then.
 */
export function gatedTransport(t: Transport, gate: WriteGate, queue: ((m: OfflineMutation) => Promise<unknown>) | null = null): Transport {
  const guard = (collection?: string) => {
    const refusal = gate.refusal(collection);
    if (refusal) throw refusal;
  };
  const allowed = (collection: string, action: 'create' | 'update' | 'delete') => {
    const refusal = writeRuleRefusal(collection, action);
    if (refusal) throw refusal;
  };
  /** The queued write while offline in client mode, else null (the write goes online). */
  const offline = (m: OfflineMutation) => (queue && gate.offline ? queue(m) : null);
  return {
    signIn: (p) => t.signIn(p),
    signOut: () => t.signOut(),
    list: (c, o) => t.list(c, o),
    getFullList: (c, o) => t.getFullList(c, o),
    async create<T>(c: string, data: object): Promise<T> {
      allowed(c, 'create');
      const q = offline({ collection: c, action: 'create', data });
      if (q) return (await q) as T;
      guard(c);
      return t.create<T>(c, data);
    },
    async update<T>(c: string, id: string, data: object): Promise<T> {
      allowed(c, 'update');
      const q = offline({ collection: c, action: 'update', recordId: id, data });
      if (q) return (await q) as T;
      guard(c);
      return t.update<T>(c, id, data);
    },
    async remove(c: string, id: string): Promise<void> {
      allowed(c, 'delete');
      const q = offline({ collection: c, action: 'delete', recordId: id });
      if (q) {
        await q;
        return;
      }
      guard(c);
      return t.remove(c, id);
    },
    async importRecords(c: string, records: object[], apply: boolean): Promise<ImportReport> {
      if (SERVER_OWNED_COLLECTIONS.has(c) || APPEND_ONLY_COLLECTIONS.has(c)) allowed(c, 'update');
      guard(c);
      return t.importRecords(c, records, apply);
    },
    async syncServers(operations: ServerSyncOperation[]): Promise<ServerSyncEntry[]> {
      guard('servers');
      return t.syncServers(operations);
    },
    authIdentity: () => t.authIdentity(),
    subscribe: (c, cb) => t.subscribe(c, cb),
    onStateChange: (cb) => t.onStateChange(cb),
    onClientReset: t.onClientReset ? (cb) => t.onClientReset!(cb) : undefined,
    health: () => t.health(),
    async heartbeat(tabId: string, host: string): Promise<PresenceHeartbeat> {
      guard();
      return t.heartbeat(tabId, host);
    },
    presence: () => t.presence(),
    // Not a record write: the server polls its feeds; nothing to keep consistent locally.
    serviceStatus: () => t.serviceStatus(),
    refreshServiceStatus: () => t.refreshServiceStatus(),
    // Likewise server-owned: the server reads the Radar page; nothing local to keep consistent.
    radar: () => t.radar(),
    refreshRadar: () => t.refreshRadar(),
    // A read of server-owned branding (the logos are set on the server PC, not through here).
    brandingLogo: (kind) => t.brandingLogo(kind),
    // Reads of the server-owned Wiki (published on the server PC or a paired laptop, never here).
    wikiSearch: (query, signal) => t.wikiSearch(query, signal),
    wikiPdf: (id, signal) => t.wikiPdf(id, signal),
    wikiCover: (id, signal) => t.wikiCover(id, signal),
    // Not a record write either: the server reads the workbook into rows and stores nothing (the
    // rows then go through importRecords / syncServers, which are gated).
    readSpreadsheet: (file, sheet) => t.readSpreadsheet(file, sheet),
    // Not a record write: the server prepares the image and stores nothing (it reaches a record
    // inside an alert body, through the gated create/update).
    prepareAlertImage: (file) => t.prepareAlertImage(file),
    // Local to this device (a window or browser tab), never a record write.
    openDynatraceDashboard: (url, key) => t.openDynatraceDashboard(url, key),
    clearDynatraceSession: t.clearDynatraceSession ? () => t.clearDynatraceSession!() : undefined,
    dynatracePopouts: t.dynatracePopouts ? () => t.dynatracePopouts!() : undefined,
    closeDynatraceDashboard: t.closeDynatraceDashboard ? (key) => t.closeDynatraceDashboard!(key) : undefined,
    openRadarSignIn: t.openRadarSignIn ? () => t.openRadarSignIn!() : undefined,
    finishRadarSignIn: t.finishRadarSignIn ? () => t.finishRadarSignIn!() : undefined,
    // Relay Web's protected routes (Administration, Wiki publishing): online-only and
    // server-mediated, so never gated or queued like record writes.
    webFetch: t.webFetch ? (path, init) => t.webFetch!(path, init) : undefined,
    // The desktop main window's once-per-page mount report (the recovery launcher's health link).
    shellMounted: t.shellMounted ? () => t.shellMounted!() : undefined,
    get serverUrl() {
      return t.serverUrl;
    },
    get mode() {
      return t.mode;
    },
  };
}

const DataContext = createContext<DataStores | null>(null);

export function DataProvider({ children }: { children: ReactNode }) {
  const transport = useTransport();
  const stores = useMemo(() => new DataStores(transport), [transport]);
  useEffect(() => {
    const detach = stores.attach();
    return () => {
      detach();
      stores.stop();
    };
  }, [stores]);
  // Features below write through the gated transport.
  return createElement(
    DataContext.Provider,
    { value: stores },
    createElement(TransportProvider, { transport: stores.gated, children }),
  );
}

export function useStores(): DataStores {
  const s = useContext(DataContext);
  if (!s) throw new Error('useStores() outside <DataProvider>');
  return s;
}

const noSubscribe = () => () => {};
const noState = () => null;

/** Desktop client mode: the offline queue and its state; null in every other mode. */
export function useOfflineSync(): { sync: OfflineSync; state: OfflineSyncState } | null {
  const sync = useStores().sync;
  const state = useSyncExternalStore(sync?.subscribe ?? noSubscribe, sync?.getSnapshot ?? noState, sync?.getSnapshot ?? noState);
  return sync && state ? { sync, state } : null;
}

export function useCollection<T extends BaseRecord>(name: string): CollectionState<T> & { store: CollectionStore<T> } {
  const store = useStores().get<T>(name);
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
  return { ...state, store };
}
