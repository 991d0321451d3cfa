// PocketBaseTransport Wiki reads: search with its parameters (and abortable), the PDF bytes with
// the server's checksum header, the cover (null on 404), over the data API and the Relay Web
// gateway (reads: no CSRF token); a 400 from search is an 'invalid' TransportError with the
// server's message.
import { describe, expect, it } from 'vitest';
import { WIKI_DOCUMENTS_PATH, WIKI_SEARCH_PATH } from './pocketbase';
import { disposeAfterEach, json, signedInDirect, signedInGateway } from './testkit';

const keep = disposeAfterEach();
const PDF = new TextEncoder().encode('%PDF-1.4\n%%EOF\n');
const hit = { documentId: 'doc1', title: 'Runbook', pageNumber: 3, heading: 'Procedures', matchKind: 'exact', excerpt: 'restart the collector', highlights: [[12, 21]] };

describe('PocketBaseTransport wiki reads', () => {
  it('searches with the query and filters and answers the items', async () => {
    const t = keep(await signedInDirect({ [`GET ${WIKI_SEARCH_PATH}`]: () => json(200, { items: [hit] }) }));
    const hits = await t.transport.wikiSearch({ q: 'collector', categoryId: 'cat1', documentType: 'sop' });
    expect(hits).toEqual([hit]);
    const call = t.calls.find((c) => c.path === WIKI_SEARCH_PATH)!;
    expect(Object.fromEntries(new URLSearchParams(call.search))).toEqual({ q: 'collector', categoryId: 'cat1', documentType: 'sop' });
    expect(call.headers.get('Authorization')).toBe('tok-123');
  });

  it("maps a refused query (400) to an 'invalid' error with the server's message", async () => {
    const t = keep(
      await signedInDirect({ [`GET ${WIKI_SEARCH_PATH}`]: () => json(400, { status: 400, message: 'Search for at least one uncommon word.', data: {} }) }),
    );
    await expect(t.transport.wikiSearch({ q: 'the' })).rejects.toMatchObject({ kind: 'invalid', status: 400, message: 'Search for at least one uncommon word.' });
  });

  it('is cancelled by its signal', async () => {
    const t = keep(
      await signedInDirect({
        [`GET ${WIKI_SEARCH_PATH}`]: () => (init?: RequestInit) =>
          new Promise<Response>((_, reject) => {
            const abort = () => reject(new DOMException('Aborted', 'AbortError'));
            if (init?.signal?.aborted) abort();
            init?.signal?.addEventListener('abort', abort);
          }),
      }),
    );
    const ctl = new AbortController();
    const p = t.transport.wikiSearch({ q: 'dns' }, ctl.signal);
    ctl.abort();
    await expect(p).rejects.toMatchObject({ kind: 'aborted' });
  });

  it('reads the PDF bytes and the X-Relay-Checksum header; a trashed document is not-found', async () => {
    const t = keep(
      await signedInDirect({
        [`GET ${WIKI_DOCUMENTS_PATH}doc1/pdf`]: () => new Response(PDF, { status: 200, headers: { 'Content-Type': 'application/pdf', 'X-Relay-Checksum': 'ab'.repeat(32) } }),
      }),
    );
    const pdf = await t.transport.wikiPdf('doc1');
    expect(new Uint8Array(pdf.bytes)).toEqual(PDF);
    expect(pdf.checksum).toBe('ab'.repeat(32));
    await expect(t.transport.wikiPdf('gone')).rejects.toMatchObject({ kind: 'not-found' });
  });

  it('reads the cover through the gateway without a CSRF token, null when there is none', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);
    const t = await signedInGateway({ [`GET ${WIKI_DOCUMENTS_PATH}doc1/cover`]: () => new Response(png, { status: 200, headers: { 'Content-Type': 'image/png' } }) });
    try {
      const blob = await t.transport.wikiCover('doc1');
      expect(new Uint8Array(await blob!.arrayBuffer())).toEqual(png);
      await expect(t.transport.wikiCover('doc2')).resolves.toBeNull();
      const call = t.calls.find((c) => c.path === `${WIKI_DOCUMENTS_PATH}doc1/cover`)!;
      expect(call.headers.get('Authorization')).toBe('web-tok');
      expect(call.headers.get('X-Relay-CSRF') ?? call.headers.get('x-csrf-token')).toBeNull();
    } finally {
      t.transport.dispose();
    }
  });
});
