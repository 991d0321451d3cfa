// Search-as-you-type: one request per pause in typing, stale answers dropped and their requests
// aborted, the server's 400 as a hint, an outage as "unavailable", over-long queries refused
// locally. Fake timers stand in for the debounce.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TransportError, type WikiSearchHit, type WikiSearchQuery } from '../../transport/types';
import { MAX_QUERY_CHARS, SEARCH_DEBOUNCE_MS, TOO_LONG_HINT, UNAVAILABLE_TEXT, WikiSearch } from './wikiSearch';

const hit = (q: string): WikiSearchHit => ({ documentId: 'doc1', title: q, pageNumber: 3, heading: '', matchKind: 'exact', excerpt: q, highlights: [[0, q.length]] });

interface Pending {
  query: WikiSearchQuery;
  signal: AbortSignal;
  resolve: (hits: WikiSearchHit[]) => void;
  reject: (e: unknown) => void;
}

function harness() {
  const calls: Pending[] = [];
  const run = vi.fn(
    (query: WikiSearchQuery, signal: AbortSignal) =>
      new Promise<WikiSearchHit[]>((resolve, reject) => {
        calls.push({ query, signal, resolve, reject });
      }),
  );
  const s = new WikiSearch(run);
  return { s, run, calls };
}

const settle = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('WikiSearch', () => {
  it('waits for a pause in typing and sends one request for the last text', async () => {
    const { s, run, calls } = harness();
    for (const q of ['c', 'co', 'col', 'collector']) {
      s.set(q);
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(run).not.toHaveBeenCalled();
    expect(s.snapshot).toEqual({ status: 'searching', query: 'collector' });
    await vi.advanceTimersByTimeAsync(SEARCH_DEBOUNCE_MS);
    expect(run).toHaveBeenCalledTimes(1);
    expect(calls[0].query).toEqual({ q: 'collector' });
    calls[0].resolve([hit('collector')]);
    await settle();
    expect(s.snapshot).toEqual({ status: 'ready', query: 'collector', hits: [hit('collector')] });
  });

  it('aborts the request in flight when the query changes and never shows its late answer', async () => {
    const { s, calls } = harness();
    const seen: string[] = [];
    s.subscribe(() => seen.push(s.snapshot.status === 'ready' ? `ready:${s.snapshot.query}` : s.snapshot.status));
    s.set('router');
    await vi.advanceTimersByTimeAsync(SEARCH_DEBOUNCE_MS);
    s.set('switch');
    expect(calls[0].signal.aborted).toBe(true);
    await vi.advanceTimersByTimeAsync(SEARCH_DEBOUNCE_MS);
    calls[1].resolve([hit('switch')]);
    await settle();
    calls[0].resolve([hit('router')]); // the stale answer arrives last
    await settle();
    expect(s.snapshot).toMatchObject({ status: 'ready', query: 'switch' });
    expect(seen).not.toContain('ready:router');
  });

  it('drops an answer that lost the race even when its transport ignores the abort', async () => {
    const { s, calls } = harness();
    s.set('alpha');
    await vi.advanceTimersByTimeAsync(SEARCH_DEBOUNCE_MS);
    s.set('beta');
    await vi.advanceTimersByTimeAsync(SEARCH_DEBOUNCE_MS);
    calls[0].reject(new TransportError({ kind: 'server', status: 500, message: 'boom' }));
    await settle();
    expect(s.snapshot).toEqual({ status: 'searching', query: 'beta' });
    calls[1].resolve([]);
    await settle();
    expect(s.snapshot).toEqual({ status: 'ready', query: 'beta', hits: [] });
  });

  it('passes the category and type filters and searches again when they change', async () => {
    const { s, calls } = harness();
    s.set('vpn', { categoryId: 'cat1', documentType: 'sop' });
    await vi.advanceTimersByTimeAsync(SEARCH_DEBOUNCE_MS);
    expect(calls[0].query).toEqual({ q: 'vpn', categoryId: 'cat1', documentType: 'sop' });
    s.set('vpn', { categoryId: null, documentType: null });
    await vi.advanceTimersByTimeAsync(SEARCH_DEBOUNCE_MS);
    expect(calls[1].query).toEqual({ q: 'vpn' });
    expect(calls[0].signal.aborted).toBe(true);
  });

  it("shows the server's refusal of a query as a hint, and an outage as unavailable", async () => {
    const { s, calls } = harness();
    s.set('the and of');
    await vi.advanceTimersByTimeAsync(SEARCH_DEBOUNCE_MS);
    calls[0].reject(new TransportError({ kind: 'invalid', status: 400, message: 'Search for at least one word that is not a common word.' }));
    await settle();
    expect(s.snapshot).toEqual({ status: 'hint', query: 'the and of', message: 'Search for at least one word that is not a common word.' });
    s.set('firewall');
    await vi.advanceTimersByTimeAsync(SEARCH_DEBOUNCE_MS);
    calls[1].reject(new TransportError({ kind: 'network', status: 0, message: 'Cannot reach the Relay server.' }));
    await settle();
    expect(s.snapshot).toEqual({ status: 'unavailable', query: 'firewall', message: UNAVAILABLE_TEXT });
  });

  it('refuses a query over the limit without asking the server (counting code points)', async () => {
    const { s, run } = harness();
    s.set('🚨'.repeat(MAX_QUERY_CHARS)); // 240 UTF-16 units, 120 characters: allowed
    expect(s.snapshot.status).toBe('searching');
    s.set('x'.repeat(MAX_QUERY_CHARS + 1));
    expect(s.snapshot).toMatchObject({ status: 'hint', message: TOO_LONG_HINT });
    await vi.advanceTimersByTimeAsync(SEARCH_DEBOUNCE_MS * 2);
    expect(run).not.toHaveBeenCalled();
  });

  it('goes idle at once on a blank query, cancelling what was pending; Enter skips the wait', async () => {
    const { s, run, calls } = harness();
    s.set('dns');
    await vi.advanceTimersByTimeAsync(SEARCH_DEBOUNCE_MS);
    s.set('   ');
    expect(s.snapshot).toEqual({ status: 'idle' });
    expect(calls[0].signal.aborted).toBe(true);
    s.set('bgp');
    s.flush();
    expect(run).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(SEARCH_DEBOUNCE_MS);
    expect(run).toHaveBeenCalledTimes(2);
  });
});
