// Header search / command palette: 200 ms debounce, ≤ 15 results, ↑/↓/Enter/Esc; "No matches"
// when a query finds nothing (list tabs show it in their own list instead).
import { forwardRef, useEffect, useImperativeHandle, useMemo, useRef, useState } from 'react';
import type { Contact } from '../people/contacts';
import type { Server } from '../servers/servers';
import type { GroupRecord } from '../compose/groups';
import { useCollection } from '../../data/store';
import { EMAIL_RE, SEARCH_DEBOUNCE_MS, SEARCH_LIMIT, rankSearch, type SearchItem } from '../../lib/search';
import { plural } from '../../lib/text';
import { useShell } from './ShellContext';

export interface SearchHandle {
  focus: () => void;
}

const LIST_TABS = new Set(['people', 'servers', 'notes', 'oncall']);

export const GlobalSearch = forwardRef<SearchHandle, { query: string; setQuery: (q: string) => void; onCreateContact: (email: string) => void }>(
  function GlobalSearch({ query, setQuery, onCreateContact }, ref) {
    const shell = useShell();
    const input = useRef<HTMLInputElement>(null);
    const [open, setOpen] = useState(false);
    const [debounced, setDebounced] = useState('');
    const [sel, setSel] = useState(0);
    const contacts = useCollection<Contact>('contacts').items;
    const servers = useCollection<Server>('servers').items;
    const groups = useCollection<GroupRecord>('bridge_groups').items;
    useImperativeHandle(ref, () => ({ focus: () => { input.current?.focus(); input.current?.select(); setOpen(true); } }));
    useEffect(() => {
      const t = setTimeout(() => setDebounced(query), SEARCH_DEBOUNCE_MS);
      return () => clearTimeout(t);
    }, [query]);

    const results = useMemo<SearchItem[]>(() => {
      const q = debounced.trim();
      if (!q) {
        return [
          { kind: 'action', id: 'go:compose', label: 'Go to Compose', fields: [] },
          { kind: 'action', id: 'go:oncall', label: 'Go to On-Call Board', fields: [] },
          { kind: 'action', id: 'go:people', label: 'Go to People', fields: [] },
          { kind: 'action', id: 'create-contact:', label: 'Create New Contact', fields: [] },
        ];
      }
      const actions: SearchItem[] = [];
      if (EMAIL_RE.test(q)) {
        actions.push({ kind: 'action', id: `add:${q}`, label: `Add ${q} to Compose`, fields: [] });
        if (!contacts.some((c) => (c.email ?? '').toLowerCase() === q.toLowerCase())) {
          actions.push({ kind: 'action', id: `create-contact:${q}`, label: `Create Contact: ${q}`, fields: [] });
        }
      }
      if (LIST_TABS.has(shell.tab)) return actions; // the tab's own list is filtered instead
      function* items(): Generator<SearchItem> {
        for (const g of groups) yield { kind: 'group', id: g.id, label: g.name, detail: plural(g.contacts?.length ?? 0, 'contact'), fields: [g.name] };
        for (const c of contacts) yield { kind: 'contact', id: c.id, label: c.name, detail: c.email, fields: [c.name, c.email, c.phone, c.title] };
        if (shell.tab !== 'compose') {
          for (const s of servers) {
            yield { kind: 'server', id: s.id, label: s.name, detail: s.businessArea, fields: [s.name, s.businessArea, s.lob, s.comment, s.owner, s.contact, s.os] };
          }
        }
      }
      return [...actions, ...rankSearch(q, items(), SEARCH_LIMIT - actions.length)];
    }, [debounced, contacts, servers, groups, shell.tab]);

    useEffect(() => setSel(0), [results]);
    // aria-controls names the listbox only while it is rendered.
    const showList = open && results.length > 0;

    function choose(item: SearchItem) {
      setOpen(false);
      if (item.kind === 'action') {
        if (item.id.startsWith('go:')) shell.go(item.id.slice(3) as never);
        else if (item.id.startsWith('add:')) {
          shell.composeDispatch({ type: 'add', email: item.id.slice(4) });
          shell.go('compose');
        } else if (item.id.startsWith('create-contact:')) onCreateContact(item.id.slice('create-contact:'.length));
      } else if (item.kind === 'contact') {
        const c = contacts.find((x) => x.id === item.id);
        if (c?.email) shell.composeDispatch({ type: 'add', email: c.email });
        shell.go('compose');
      } else if (item.kind === 'group') {
        shell.composeDispatch({ type: 'toggle-group', id: item.id });
        shell.go('compose');
      } else if (item.kind === 'server') {
        shell.openRecord('servers', item.id);
      }
      setQuery('');
    }

    return (
      <div className="search">
        <input
          ref={input}
          className="input search-input"
          data-testid="global-search"
          placeholder="Search…  (Ctrl+K)"
          aria-label="Search"
          role="combobox"
          aria-expanded={showList}
          aria-controls={showList ? 'search-results' : undefined}
          value={query}
          onFocus={() => setOpen(true)}
          onBlur={() => setTimeout(() => document.activeElement !== input.current && setOpen(false), 150)}
          onChange={(e) => {
            setQuery(e.target.value);
            setOpen(true);
          }}
          onKeyDown={(e) => {
            if (e.key === 'ArrowDown') {
              e.preventDefault();
              setSel((s) => Math.min(s + 1, results.length - 1));
            } else if (e.key === 'ArrowUp') {
              e.preventDefault();
              setSel((s) => Math.max(s - 1, 0));
            } else if (e.key === 'Enter' && results[sel]) {
              e.preventDefault();
              choose(results[sel]);
            } else if (e.key === 'Escape') {
              e.stopPropagation();
              setOpen(false);
              setQuery('');
              input.current?.blur();
            }
          }}
        />
        {open && results.length === 0 && debounced.trim() !== '' && !LIST_TABS.has(shell.tab) && (
          <p className="search-results search-empty muted" role="status" data-testid="search-no-matches">No matches</p>
        )}
        {showList && (
          <ul id="search-results" className="search-results" role="listbox" data-testid="search-results">
            {results.map((r, i) => (
              <li
                key={`${r.kind}:${r.id}`}
                role="option"
                aria-selected={i === sel}
                className={i === sel ? 'search-item search-item-sel' : 'search-item'}
                data-testid="search-result"
                onMouseDown={(e) => {
                  e.preventDefault();
                  choose(r);
                }}
              >
                <span className={`kind kind-${r.kind}`}>{r.kind}</span>
                <span className="search-label">{r.label}</span>
                {r.detail && <span className="muted search-detail">{r.detail}</span>}
              </li>
            ))}
          </ul>
        )}
      </div>
    );
  },
);
