// Knowledge tab (issue #15, reader side): the Wiki's published SOP manuals and quick guides, live
// over realtime (a newly published document appears, a trashed one disappears, without reload).
// Search-as-you-type on top (./SearchPanel over ./wikiSearch), then the category list (in the
// server's order, with counts), the type filter and the document cards (cover, title, type,
// pages, updated). A card or a search hit opens ./PdfViewer (at the hit's page). Publishing is not
// here: the server PC's Administration screen and `relay wiki` do it. Rules live in ./knowledge.
import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { useCollection } from '../../data/store';
import { useTransport } from '../../transport/context';
import type { WikiSearchHit } from '../../transport/types';
import { Cover } from './Cover';
import {
  ALL_DOCUMENTS,
  TYPE_FILTERS,
  WIKI_CATEGORIES,
  WIKI_DOCUMENTS,
  categoryCounts,
  filterDocuments,
  liveFilter,
  orderedCategories,
  pagesText,
  searchIndexNote,
  typeLabel,
  updatedText,
  type LibraryFilter,
  type WikiCategory,
  type WikiDocument,
} from './knowledge';
import { PdfViewer } from './PdfViewer';
import { SearchPanel } from './SearchPanel';
import { WikiSearch } from './wikiSearch';

interface Opened {
  doc: WikiDocument;
  page: number;
}

export default function KnowledgeView() {
  const transport = useTransport();
  const categories = useCollection<WikiCategory>(WIKI_CATEGORIES);
  const documents = useCollection<WikiDocument>(WIKI_DOCUMENTS);
  const [filter, setFilter] = useState<LibraryFilter>(ALL_DOCUMENTS);
  const [query, setQuery] = useState('');
  const [opened, setOpened] = useState<Opened | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const search = useMemo(() => new WikiSearch((q, signal) => transport.wikiSearch(q, signal)), [transport]);
  useEffect(() => () => search.dispose(), [search]);
  const searchState = useSyncExternalStore(search.subscribe, search.getSnapshot, search.getSnapshot);

  const cats = useMemo(() => orderedCategories(categories.items), [categories.items]);
  const shown = liveFilter(filter, cats);
  useEffect(() => {
    search.set(query, { categoryId: shown.categoryId, documentType: shown.type === 'all' ? null : shown.type });
  }, [search, query, shown.categoryId, shown.type]);

  const counts = useMemo(() => categoryCounts(documents.items, shown.type), [documents.items, shown.type]);
  const visible = useMemo(() => filterDocuments(documents.items, shown), [documents.items, shown]);
  const byId = useMemo(() => new Map(documents.items.map((d) => [d.id, d])), [documents.items]);
  const total = useMemo(() => [...counts.values()].reduce((a, b) => a + b, 0), [counts]);

  const openHit = useCallback(
    (hit: WikiSearchHit) => {
      const doc = byId.get(hit.documentId);
      if (!doc) {
        setNotice('That document is no longer in the library.');
        return;
      }
      setNotice(null);
      setOpened({ doc, page: hit.pageNumber });
    },
    [byId],
  );
  const titleOf = useCallback((hit: WikiSearchHit) => byId.get(hit.documentId)?.title ?? hit.title, [byId]);
  // Keep the open document's record current (retitled, re-indexed); a trashed one stays shown, marked.
  const openDoc = opened ? (byId.get(opened.doc.id) ?? opened.doc) : null;

  const loading = documents.status === 'loading' || categories.status === 'loading';
  const error = documents.status === 'error' ? documents.error : categories.status === 'error' ? categories.error : null;

  return (
    <section className="view view-wide knowledge" aria-labelledby="knowledge-title" data-testid="knowledge-view">
      <header className="view-header">
        <h1 id="knowledge-title" className="view-title">
          Knowledge
        </h1>
        <span className="muted small" data-testid="knowledge-count">
          {loading ? 'Loading…' : `${documents.items.length} ${documents.items.length === 1 ? 'document' : 'documents'}`}
        </span>
      </header>

      <SearchPanel query={query} onQuery={setQuery} onFlush={() => search.flush()} state={searchState} onOpen={openHit} titleOf={titleOf} />
      {notice && (
        <p className="warn-text small" role="status">
          {notice}
        </p>
      )}

      <div className="knowledge-layout">
        {/* A labelled group, not a <nav>: the sidebar stays the page's one navigation landmark. */}
        <div className="knowledge-categories" role="group" aria-label="Categories" data-testid="knowledge-categories">
          <ul className="plain-list">
            <li>
              <CategoryButton label="All documents" count={total} on={shown.categoryId === null} onClick={() => setFilter({ ...shown, categoryId: null })} />
            </li>
            {cats.map((c) => (
              <li key={c.id}>
                <CategoryButton label={c.name} count={counts.get(c.id) ?? 0} on={shown.categoryId === c.id} onClick={() => setFilter({ ...shown, categoryId: c.id })} />
              </li>
            ))}
          </ul>
        </div>

        <div className="knowledge-library">
          <div className="seg" role="group" aria-label="Document type" data-testid="knowledge-type-filter">
            {TYPE_FILTERS.map((t) => (
              <button
                key={t.id}
                type="button"
                className={shown.type === t.id ? 'seg-btn seg-on' : 'seg-btn'}
                aria-pressed={shown.type === t.id}
                onClick={() => setFilter({ ...shown, type: t.id })}
              >
                {t.label}
              </button>
            ))}
          </div>
          {error && (
            <p className="error-text" role="alert">
              {error}
            </p>
          )}
          {!loading && visible.length === 0 && !error && (
            <p className="muted empty" data-testid="knowledge-empty">
              {documents.items.length === 0 ? 'Nothing has been published yet.' : 'No documents in this category and type.'}
            </p>
          )}
          <ul className="knowledge-grid" aria-label="Documents" data-testid="knowledge-documents">
            {visible.map((d) => (
              <li key={d.id}>
                <DocumentCard doc={d} onOpen={() => setOpened({ doc: d, page: 1 })} />
              </li>
            ))}
          </ul>
        </div>
      </div>

      {opened && openDoc && (
        <PdfViewer key={`${opened.doc.id}:${opened.page}`} doc={openDoc} initialPage={opened.page} removed={!byId.has(opened.doc.id)} onClose={() => setOpened(null)} />
      )}
    </section>
  );
}

function CategoryButton({ label, count, on, onClick }: { label: string; count: number; on: boolean; onClick: () => void }) {
  return (
    <button type="button" className={on ? 'knowledge-category knowledge-category-on' : 'knowledge-category'} aria-pressed={on} onClick={onClick}>
      <span className="grow">{label}</span>
      <span className="muted small">
        {count}
        <span className="visually-hidden">{count === 1 ? ' document' : ' documents'}</span>
      </span>
    </button>
  );
}

function DocumentCard({ doc, onOpen }: { doc: WikiDocument; onOpen: () => void }) {
  const note = searchIndexNote(doc);
  return (
    <button type="button" className="knowledge-card" onClick={onOpen} data-testid="knowledge-document" data-id={doc.id}>
      <Cover documentId={doc.id} coverChecksum={doc.coverChecksum} />
      <span className="knowledge-card-title">{doc.title}</span>
      <span className="knowledge-card-meta small">
        <span className="pill">{typeLabel(doc.documentType)}</span> <span className="muted">{pagesText(doc.pageCount)}</span>
      </span>
      <span className="muted small">{updatedText(doc)}</span>
      {note && <span className="muted small">{note}</span>}
    </button>
  );
}
