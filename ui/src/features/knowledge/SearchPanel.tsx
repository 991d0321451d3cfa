// The Knowledge tab's search box and its results (a combobox over a listbox: focus stays in the
// box, ↓/↑ move the active result, Enter opens it, or searches at once when none is active). Each
// result shows the document, page, heading and the excerpt with its highlights as <mark> text
// (./excerpt; never HTML). Hints (a query of only common words, too long) and an outage are said
// in plain words here and leave the library below usable. State comes from ./wikiSearch.
import { useEffect, useId, useState, type KeyboardEvent } from 'react';
import type { WikiSearchHit } from '../../transport/types';
import { excerptParts } from './excerpt';
import type { SearchState } from './wikiSearch';

export function Excerpt({ text, highlights }: { text: string; highlights: WikiSearchHit['highlights'] }) {
  return (
    <span className="knowledge-excerpt" data-testid="knowledge-excerpt">
      {excerptParts(text, highlights).map((p, i) => (p.mark ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>))}
    </span>
  );
}

export function SearchPanel({
  query,
  onQuery,
  onFlush,
  state,
  onOpen,
  titleOf,
}: {
  query: string;
  onQuery: (q: string) => void;
  onFlush: () => void;
  state: SearchState;
  onOpen: (hit: WikiSearchHit) => void;
  /** The document's current title (hits carry the title at indexing time). */
  titleOf: (hit: WikiSearchHit) => string;
}) {
  const id = useId();
  const listId = `${id}-results`;
  const hits = state.status === 'ready' ? state.hits : [];
  const [active, setActive] = useState(-1);
  useEffect(() => setActive(-1), [state]);
  const open = hits.length > 0;

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown' && open) {
      e.preventDefault();
      setActive((a) => (a + 1) % hits.length);
    } else if (e.key === 'ArrowUp' && open) {
      e.preventDefault();
      setActive((a) => (a <= 0 ? hits.length - 1 : a - 1));
    } else if (e.key === 'Enter') {
      e.preventDefault();
      if (open && active >= 0) onOpen(hits[active]);
      else if (open && hits.length > 0 && state.status === 'ready') onOpen(hits[0]);
      else onFlush();
    }
  };

  return (
    <div className="knowledge-search" data-testid="knowledge-search">
      <label htmlFor={`${id}-q`} className="visually-hidden">
        Search the knowledge base
      </label>
      <input
        id={`${id}-q`}
        className="input knowledge-search-input"
        type="search"
        role="combobox"
        aria-expanded={open}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={open && active >= 0 ? `${id}-hit-${active}` : undefined}
        placeholder="Search SOP manuals and quick guides…"
        value={query}
        maxLength={400}
        onChange={(e) => onQuery(e.target.value)}
        onKeyDown={onKeyDown}
        data-testid="knowledge-search-input"
      />
      <p className="small knowledge-search-status" role="status" data-testid="knowledge-search-status">
        {state.status === 'searching' && <span className="muted">Searching…</span>}
        {state.status === 'ready' && <span className="muted">{hits.length === 0 ? 'No matches.' : `${hits.length} ${hits.length === 1 ? 'match' : 'matches'}`}</span>}
        {state.status === 'hint' && (
          <span className="muted" data-testid="knowledge-search-hint">
            {state.message}
          </span>
        )}
        {state.status === 'unavailable' && (
          <span className="warn-text" data-testid="knowledge-search-unavailable">
            {state.message}
          </span>
        )}
      </p>
      <ul id={listId} role="listbox" aria-label="Search results" className="knowledge-hits" hidden={!open} data-testid="knowledge-hits">
        {hits.map((h, i) => (
          <li
            key={`${h.documentId}-${h.pageNumber}-${i}`}
            id={`${id}-hit-${i}`}
            role="option"
            aria-selected={i === active}
            className={i === active ? 'knowledge-hit knowledge-hit-active' : 'knowledge-hit'}
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => onOpen(h)}
            data-testid="knowledge-hit"
            data-page={h.pageNumber}
          >
            <span className="knowledge-hit-head">
              <span className="knowledge-hit-title">{titleOf(h)}</span>
              <span className="muted small">
                Page {h.pageNumber}
                {h.heading ? ` · ${h.heading}` : ''}
              </span>
            </span>
            <Excerpt text={h.excerpt} highlights={h.highlights} />
          </li>
        ))}
      </ul>
    </div>
  );
}
