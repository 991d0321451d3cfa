// Search-as-you-type over the Wiki: waits SEARCH_DEBOUNCE_MS after the last keystroke or filter
// change, then asks the server once; a newer query aborts the request in flight and any answer
// that is not for the latest query is dropped (request ids), so results never go back in time.
// A query the server refuses as such (only function words, over 120 characters: 400) becomes a
// plain hint; anything else (server down, search failed) becomes "unavailable" while browsing the
// library keeps working. Holds no React; the view follows it with `subscribe`.
import { isTransportError, type WikiDocumentType, type WikiSearchHit, type WikiSearchQuery } from '../../transport/types';

export const SEARCH_DEBOUNCE_MS = 250;
/** The server's query limit, in characters (code points). */
export const MAX_QUERY_CHARS = 120;
export const TOO_LONG_HINT = `Search for at most ${MAX_QUERY_CHARS} characters.`;
export const UNAVAILABLE_TEXT = 'Search is unavailable right now. The library below still opens every document.';

export type SearchState =
  | { status: 'idle' }
  | { status: 'searching'; query: string }
  | { status: 'ready'; query: string; hits: WikiSearchHit[] }
  | { status: 'hint'; query: string; message: string }
  | { status: 'unavailable'; query: string; message: string };

export interface SearchFilters {
  categoryId: string | null;
  documentType: WikiDocumentType | null;
}

export type RunSearch = (query: WikiSearchQuery, signal: AbortSignal) => Promise<WikiSearchHit[]>;

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export class WikiSearch {
  private state: SearchState = { status: 'idle' };
  private readonly listeners = new Set<() => void>();
  private timer: unknown = null;
  private inFlight: AbortController | null = null;
  /** Grows with every request sent; an answer is applied only for the latest one. */
  private requestId = 0;
  private query = '';
  private filters: SearchFilters = { categoryId: null, documentType: null };

  constructor(
    private readonly run: RunSearch,
    private readonly delayMs = SEARCH_DEBOUNCE_MS,
    private readonly timers: Timers = realTimers,
  ) {}

  get snapshot(): SearchState {
    return this.state;
  }

  getSnapshot = (): SearchState => this.state;

  subscribe = (l: () => void): (() => void) => {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  };

  /** A new query text and/or filters: searched after the debounce (blank: idle at once). */
  set(query: string, filters: SearchFilters = this.filters): void {
    const q = query.trim();
    const same = q === this.query && filters.categoryId === this.filters.categoryId && filters.documentType === this.filters.documentType;
    this.query = q;
    this.filters = filters;
    if (same && this.state.status !== 'idle') return;
    this.cancel();
    if (q === '') return this.emit({ status: 'idle' });
    if (Array.from(q).length > MAX_QUERY_CHARS) return this.emit({ status: 'hint', query: q, message: TOO_LONG_HINT });
    this.emit({ status: 'searching', query: q });
    this.timer = this.timers.set(() => {
      this.timer = null;
      void this.send();
    }, this.delayMs);
  }

  /** Searches the current text now (Enter in the box), skipping what is left of the debounce. */
  flush(): void {
    if (this.timer === null) return;
    this.timers.clear(this.timer);
    this.timer = null;
    void this.send();
  }

  dispose(): void {
    this.cancel();
    this.listeners.clear();
  }

  private cancel(): void {
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = null;
    this.inFlight?.abort();
    this.inFlight = null;
    this.requestId++; // whatever is still in flight is now stale
  }

  private async send(): Promise<void> {
    const id = ++this.requestId;
    const q = this.query;
    const ctl = new AbortController();
    this.inFlight = ctl;
    const request: WikiSearchQuery = { q };
    if (this.filters.categoryId) request.categoryId = this.filters.categoryId;
    if (this.filters.documentType) request.documentType = this.filters.documentType;
    let next: SearchState;
    try {
      const hits = await this.run(request, ctl.signal);
      next = { status: 'ready', query: q, hits };
    } catch (err) {
      if (isTransportError(err) && err.kind === 'aborted') return;
      next =
        isTransportError(err) && err.kind === 'invalid'
          ? { status: 'hint', query: q, message: err.message || 'Try other words.' }
          : { status: 'unavailable', query: q, message: UNAVAILABLE_TEXT };
    }
    if (id !== this.requestId) return; // a newer query took over
    this.inFlight = null;
    this.emit(next);
  }

  private emit(s: SearchState): void {
    this.state = s;
    for (const l of [...this.listeners]) l();
  }
}
