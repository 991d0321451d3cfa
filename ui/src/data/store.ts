// Shared live collections: one fetch + one realtime subscription per collection for the
// whole UI (People, Compose, search… all read the same contacts), exposed via hooks.
import { createContext, createElement, useContext, useEffect, useMemo, useSyncExternalStore, type ReactNode } from 'react';
import { useTransport } from '../transport/context';
import type { BaseRecord, ConnectionState, RealtimeEvent, Transport } from '../transport/types';
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
};

export class CollectionStore<T extends BaseRecord> {
  private state: CollectionState<T> = initialCollection<T>();
  private readonly listeners = new Set<() => void>();
  private readonly reduce: (s: CollectionState<T>, a: CollectionAction<T>) => CollectionState<T>;
  private started = false;
  private unsub: (() => void) | null = null;
  private loadSeq = 0;
  private lastReload = 0;

  constructor(
    private readonly transport: Transport,
    readonly name: string,
  ) {
    this.reduce = collectionReducer<T>(SORTS[name] ?? newestFirst);
  }

  get snapshot(): CollectionState<T> {
    return this.state;
  }

  dispatch(a: CollectionAction<T>): void {
    this.state = this.reduce(this.state, a);
    for (const l of [...this.listeners]) l();
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

  load(): void {
    const seq = ++this.loadSeq;
    this.dispatch({ type: 'sync-start' });
    this.transport
      .getFullList<T>(this.name)
      .then((items) => seq === this.loadSeq && this.dispatch({ type: 'loaded', items }))
      .catch((err: unknown) =>
        seq === this.loadSeq && this.dispatch({ type: 'failed', error: err instanceof Error ? err.message : 'Load failed.' }),
      );
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
    this.unsub?.();
    this.unsub = null;
  }
}

export class DataStores {
  private readonly stores = new Map<string, CollectionStore<BaseRecord>>();
  private lastState: ConnectionState = 'connecting';

  constructor(readonly transport: Transport) {}

  /** Follows the connection: events missed while offline → refetch every collection once back. */
  attach(): () => void {
    return this.transport.onStateChange((s) => {
      const was = this.lastState;
      this.lastState = s;
      if (s === 'connected' && (was === 'offline' || was === 'reconnecting')) {
        for (const st of this.stores.values()) if (st.snapshot.status !== 'loading') st.load();
      }
    });
  }

  get<T extends BaseRecord>(name: string): CollectionStore<T> {
    let s = this.stores.get(name);
    if (!s) {
      s = new CollectionStore<BaseRecord>(this.transport, name);
      this.stores.set(name, s);
    }
    return s as unknown as CollectionStore<T>;
  }

  /** Stops subscriptions; a store restarts (resubscribe + refetch) when it is used again. */
  stop(): void {
    for (const s of this.stores.values()) s.stop();
  }
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
  return createElement(DataContext.Provider, { value: stores }, children);
}

export function useStores(): DataStores {
  const s = useContext(DataContext);
  if (!s) throw new Error('useStores() outside <DataProvider>');
  return s;
}

export function useCollection<T extends BaseRecord>(name: string): CollectionState<T> & { store: CollectionStore<T> } {
  const store = useStores().get<T>(name);
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
  return { ...state, store };
}
