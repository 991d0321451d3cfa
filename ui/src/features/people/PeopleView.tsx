// People: searchable (header query), filterable (Has …, Owns/Supports Server, note tag),
// column-sortable, virtualized directory (72 px rows; ↑/↓ move, Enter opens) with "No matches"
// when filters hide every contact, and a detail panel (groups, tags, server relationships):
// Add to Composer, Notes, Edit, Delete (with confirm). A row's context menu (right-click,
// Shift+F10 or the ContextMenu key: components/menuTrigger; items: ./personMenu) offers the same
// plus Manage Groups (Compose's ManageGroupsModal). Live via realtime.
import { useEffect, useMemo, useState } from 'react';
import { ContextMenu } from '../../components/ContextMenu';
import { menuTrigger, type MenuAt } from '../../components/menuTrigger';
import { SortHeader } from '../../components/SortHeader';
import { Confirm, Modal } from '../../components/Modal';
import { errorMessage, useToast } from '../../components/Toasts';
import { VirtualList } from '../../components/VirtualList';
import { useCollection } from '../../data/store';
import { groupsOf, hasTag, serverRelations, sortRows, tagChoices, type SortState } from '../../lib/directory';
import { formatPhone } from '../../lib/phone';
import { useTransport } from '../../transport/context';
import { initials, type GroupRecord } from '../compose/groups';
import { ManageGroupsModal } from '../compose/ManageGroupsModal';
import { EntityNoteModal, useEntityNotes } from '../notes/EntityNoteModal';
import { matchesQuery, type Server } from '../servers/servers';
import { useShell } from '../shell/ShellContext';
import { ContactForm } from './ContactForm';
import type { Contact } from './contacts';
import { personActions, type PersonAction } from './personMenu';

type Filter = 'email' | 'phone' | 'title' | 'notes' | 'owns' | 'supports';
const FILTERS: { id: Filter; label: string }[] = [
  { id: 'email', label: 'Has Email' },
  { id: 'phone', label: 'Has Phone' },
  { id: 'title', label: 'Has Title' },
  { id: 'notes', label: 'Has Notes' },
  { id: 'owns', label: 'Owns Server' },
  { id: 'supports', label: 'Supports Server' },
];
type SortKey = 'name' | 'email' | 'title' | 'phone';
const COLUMNS: { key: SortKey; label: string }[] = [
  { key: 'name', label: 'Name' },
  { key: 'email', label: 'Email' },
  { key: 'title', label: 'Title' },
  { key: 'phone', label: 'Phone' },
];

export default function PeopleView() {
  const transport = useTransport();
  const toast = useToast();
  const shell = useShell();
  const col = useCollection<Contact>('contacts');
  const servers = useCollection<Server>('servers').items;
  const groups = useCollection<GroupRecord>('bridge_groups').items;
  const { map: notes } = useEntityNotes('contact', col.items);
  const [filters, setFilters] = useState<Set<Filter>>(new Set());
  const [tag, setTag] = useState('');
  const [sort, setSort] = useState<SortState<SortKey> | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [modal, setModal] = useState<null | 'add' | 'edit' | 'delete' | 'note'>(null);
  const [added, setAdded] = useState<string | null>(null);
  const [menu, setMenu] = useState<MenuAt<string>>(null);
  // Manage Groups (the row menu) for this address; null when closed.
  const [groupsFor, setGroupsFor] = useState<string | null>(null);
  const openMenu = (m: MenuAt<string>) => {
    if (m) setSelected(m.item);
    setMenu(m);
  };

  const relations = useMemo(() => serverRelations(col.items, servers), [col.items, servers]);
  const tags = useMemo(() => tagChoices(notes.values()), [notes]);

  const q = shell.listQuery.trim().toLowerCase();
  const visible = useMemo(
    () =>
      col.items.filter((c) => {
        if (!matchesQuery([c.name, c.email, c.phone, c.title], q)) return false;
        if (filters.has('email') && !c.email) return false;
        if (filters.has('phone') && !c.phone) return false;
        if (filters.has('title') && !c.title) return false;
        if (filters.has('notes') && !notes.get(c.id)?.note) return false;
        if (filters.has('owns') && !relations.get(c.id)?.owns.length) return false;
        if (filters.has('supports') && !relations.get(c.id)?.supports.length) return false;
        if (tag && !hasTag(notes.get(c.id), tag)) return false;
        return true;
      }),
    [col.items, q, filters, notes, relations, tag],
  );
  const shown = useMemo(() => sortRows(visible, sort, (c, k) => c[k]), [visible, sort]);
  const filtered = q !== '' || filters.size > 0 || tag !== '';
  const current = col.items.find((c) => c.id === selected) ?? null;
  useEffect(() => {
    if (selected && !current) setSelected(null);
  }, [selected, current]);

  function addToComposer(c: Contact) {
    if (!c.email) return toast('warning', 'This contact has no email.');
    shell.composeDispatch({ type: 'add', email: c.email });
    setAdded(c.id);
    setTimeout(() => setAdded((a) => (a === c.id ? null : a)), 2000);
  }

  return (
    <section className="view view-wide directory">
      <header className="view-header">
        <h1 className="view-title">People</h1>
        <span className="muted" data-testid="people-count">
          {col.status === 'ready' ? `${visible.length} of ${col.items.length}` : 'Loading…'}
        </span>
        <button type="button" className="button button-primary push-right" data-testid="contact-new" onClick={() => setModal('add')}>
          Add contact
        </button>
      </header>
      <div className="chips" role="group" aria-label="Filters">
        {FILTERS.map((f) => (
          <button
            key={f.id}
            type="button"
            className={filters.has(f.id) ? 'chip chip-on' : 'chip'}
            aria-pressed={filters.has(f.id)}
            onClick={() => setFilters((s) => { const n = new Set(s); if (n.has(f.id)) n.delete(f.id); else n.add(f.id); return n; })}
          >
            {f.label}
          </button>
        ))}
        {tags.length > 0 && (
          <select className="input small" aria-label="Filter by tag" data-testid="people-tag-filter" value={tag} onChange={(e) => setTag(e.target.value)}>
            <option value="">All tags</option>
            {tags.map((t) => <option key={t} value={t}>#{t}</option>)}
          </select>
        )}
        {q && <span className="muted">Filtered by “{shell.listQuery}” (header search)</span>}
      </div>
      <SortHeader label="Sort contacts" columns={COLUMNS} sort={sort} onSort={setSort} />
      {col.error && <p className="error-text" role="alert">{col.error}</p>}
      <div className="split">
        {col.status === 'ready' && col.items.length === 0 ? (
          <p className="muted empty">No contacts yet.</p>
        ) : col.status === 'ready' && shown.length === 0 && filtered ? (
          <div className="muted empty grow" role="status" data-testid="people-no-matches">
            <p>No matches</p>
            <button type="button" className="button button-ghost small" disabled={filters.size === 0 && !tag} onClick={() => { setFilters(new Set()); setTag(''); }}>Clear filters</button>
          </div>
        ) : (
          <VirtualList
            label="Contacts"
            testId="contact-list"
            items={shown}
            onOpen={(c) => setSelected(c.id)}
            render={(c, _i, rowProps) => {
              const rel = relations.get(c.id);
              return (
                <div
                  key={c.id}
                  role="listitem"
                  className={c.id === selected ? 'vrow vrow-sel' : 'vrow'}
                  data-testid="contact-row"
                  data-id={c.id}
                  {...rowProps}
                  aria-current={c.id === selected ? 'true' : undefined}
                  onClick={() => setSelected(c.id)}
                  {...menuTrigger(c.id, openMenu)}
                >
                  <span className="avatar">{initials(c.name)}</span>
                  <div className="vrow-main">
                    <div className="vrow-title" data-testid="contact-row-name" title={c.name}>{c.name}</div>
                    <div className="muted small vrow-sub" data-testid="contact-row-email" title={c.email}>{c.email}</div>
                    {c.title && <div className="muted small vrow-sub" data-testid="contact-row-title" title={c.title}>{c.title}</div>}
                  </div>
                  <div className="vrow-meta">
                    {c.phone && <span className="muted small nowrap" data-testid="contact-row-phone">{formatPhone(c.phone)}</span>}
                    {rel && (rel.owns.length > 0 || rel.supports.length > 0) && (
                      <span className="nowrap" data-testid="contact-row-servers">
                        {rel.owns.length > 0 && <span className="pill" data-testid="contact-row-owner">Owner {rel.owns.length}</span>}
                        {rel.supports.length > 0 && <span className="pill" data-testid="contact-row-support">Support {rel.supports.length}</span>}
                      </span>
                    )}
                  </div>
                  <button type="button" className="button button-ghost small vrow-action" aria-label={added === c.id ? `Added: ${c.name}` : `Add to Composer: ${c.name}`}
                    onClick={(e) => { e.stopPropagation(); addToComposer(c); }}>
                    <span className="label-long">{added === c.id ? 'Added' : 'Add to Composer'}</span>
                    <span className="label-short" aria-hidden="true">{added === c.id ? '✓' : '+'}</span>
                  </button>
                </div>
              );
            }}
          />
        )}
        {current && (
          <aside className="panel detail" data-testid="contact-detail" aria-label="Contact details">
            <div className="detail-head">
              <span className="avatar avatar-lg">{initials(current.name)}</span>
              <div>
                <h2>{current.name}</h2>
                <div className="muted">{current.title}</div>
              </div>
            </div>
            <dl className="kv">
              <dt>Email</dt><dd>{current.email || '—'}</dd>
              <dt>Phone</dt><dd>{formatPhone(current.phone) || '—'}</dd>
              <dt>Groups</dt>
              <dd data-testid="contact-detail-groups">
                {groupsOf(current.email, groups).map((g) => <span key={g} className="pill">{g}</span>)}
                {groupsOf(current.email, groups).length === 0 && '—'}
              </dd>
              <dt>Tags</dt>
              <dd data-testid="contact-detail-tags">
                {(notes.get(current.id)?.tags ?? []).map((t) => <span key={t} className="pill">#{t}</span>)}
                {(notes.get(current.id)?.tags ?? []).length === 0 && '—'}
              </dd>
              <dt>Servers</dt>
              <dd data-testid="contact-detail-servers">
                {(() => {
                  const rel = relations.get(current.id);
                  const list = [...(rel?.owns ?? []).map((s) => ({ s, role: 'Owner' })), ...(rel?.supports ?? []).map((s) => ({ s, role: 'Support' }))];
                  if (list.length === 0) return '—';
                  return (
                    <ul className="plain-list">
                      {list.map(({ s, role }) => (
                        <li key={`${role}:${s.id}`}>
                          <button type="button" className="link-button" onClick={() => shell.openRecord('servers', s.id)}>{s.name}</button>{' '}
                          <span className="muted small">{role} · {[s.businessArea, s.lob, s.os].filter(Boolean).join(' · ') || '—'}</span>
                        </li>
                      ))}
                    </ul>
                  );
                })()}
              </dd>
              <dt>Note</dt><dd className="pre">{notes.get(current.id)?.note || '—'}</dd>
            </dl>
            <div className="row-wrap">
              <button type="button" className="button button-primary" onClick={() => addToComposer(current)}>{added === current.id ? 'Added' : 'Add to Composer'}</button>
              <button type="button" className="button button-ghost" data-testid="contact-notes" onClick={() => setModal('note')}>Notes</button>
              <button type="button" className="button button-ghost" data-testid="contact-edit" onClick={() => setModal('edit')}>Edit</button>
              <button type="button" className="button button-danger" data-testid="contact-delete" onClick={() => setModal('delete')}>Delete</button>
            </div>
          </aside>
        )}
      </div>
      {menu && (() => {
        const c = col.items.find((x) => x.id === menu.item);
        if (!c) return null;
        const act: Record<PersonAction, () => void> = {
          compose: () => addToComposer(c),
          'manage-groups': () => setGroupsFor((c.email ?? '').trim()),
          notes: () => setModal('note'),
          edit: () => setModal('edit'),
          delete: () => setModal('delete'),
        };
        return (
          <ContextMenu x={menu.x} y={menu.y} label={`Actions for ${c.name}`} testId="person-menu" onClose={() => setMenu(null)}
            items={personActions(c, added === c.id).map(({ action, ...item }) => ({ ...item, onSelect: act[action] }))} />
        );
      })()}
      {groupsFor !== null && <ManageGroupsModal email={groupsFor} onClose={() => setGroupsFor(null)} />}
      {modal === 'add' && (
        <Modal title="Add contact" onClose={() => setModal(null)}>
          <ContactForm onDone={() => setModal(null)} />
        </Modal>
      )}
      {modal === 'edit' && current && (
        <Modal title="Edit contact" onClose={() => setModal(null)}>
          <ContactForm editing={current} onDone={() => setModal(null)} />
        </Modal>
      )}
      {modal === 'note' && current && (
        <EntityNoteModal type="contact" record={current} existing={notes.get(current.id)} label={current.name} onClose={() => setModal(null)} />
      )}
      {modal === 'delete' && current && (
        <Confirm
          title="Delete contact"
          message={`Delete ${current.name}? This cannot be undone.`}
          onCancel={() => setModal(null)}
          onConfirm={async () => {
            setModal(null);
            try {
              await transport.remove('contacts', current.id);
              col.store.removeLocal(current);
            } catch (e) {
              toast('error', errorMessage(e));
            }
          }}
        />
      )}
    </section>
  );
}
