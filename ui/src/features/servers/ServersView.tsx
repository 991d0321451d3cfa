// Servers: searchable, filterable (incl. note tag), column-sortable, virtualized inventory
// (↑/↓ move, Enter opens) with owner/support resolved to people and "No matches" when filters
// hide every server; detail panel (tags, note) with Notes, Edit, Delete (delete asks for
// confirmation); "Sync from file…" makes the list equal a complete export (ServerSyncDialog).
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { ContextMenu } from '../../components/ContextMenu';
import { SortHeader } from '../../components/SortHeader';
import { Confirm, Modal } from '../../components/Modal';
import { errorMessage, useToast } from '../../components/Toasts';
import { VirtualList } from '../../components/VirtualList';
import { useCollection } from '../../data/store';
import { hasTag, sortRows, tagChoices, type SortState } from '../../lib/directory';
import { duplicateWarning } from '../../lib/duplicates';
import { validateRecord } from '../../lib/limits';
import { firstGraphemes } from '../../lib/text';
import { useTransport } from '../../transport/context';
import { EntityNoteModal, useEntityNotes } from '../notes/EntityNoteModal';
import type { Contact } from '../people/contacts';
import { useShell } from '../shell/ShellContext';
import { ServerSyncDialog } from './ServerSyncDialog';
import { contactIndex, isBlankRef, matchesQuery, osFamily, resolvePerson, type Server } from './servers';

const FIELDS: { key: keyof Server; label: string; required?: boolean }[] = [
  { key: 'name', label: 'Name', required: true },
  { key: 'businessArea', label: 'Business Area' },
  { key: 'lob', label: 'LOB' },
  { key: 'comment', label: 'Comment' },
  { key: 'owner', label: 'LOB Owner (email)' },
  { key: 'contact', label: 'IT Contact (email)' },
  { key: 'os', label: 'OS' },
];

function ServerForm({ editing, onDone }: { editing?: Server; onDone: () => void }) {
  const transport = useTransport();
  const toast = useToast();
  const col = useCollection<Server>('servers');
  const [data, setData] = useState<Record<string, string>>(() =>
    Object.fromEntries(FIELDS.map((f) => [f.key, String(editing?.[f.key] ?? '')])),
  );
  const [submitted, setSubmitted] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // Field-level messages with the server's limits, before save (lib/limits).
  const errors = validateRecord('servers', data, { required: submitted });
  const dup = duplicateWarning('servers', col.items, data.name, editing?.id);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setSubmitted(true);
    if (Object.keys(validateRecord('servers', data)).length > 0) return;
    const body = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, v.trim()]));
    try {
      const rec = editing ? await transport.update<Server>('servers', editing.id, body) : await transport.create<Server>('servers', body);
      col.store.upsertLocal(rec);
      toast('success', editing ? 'Server saved.' : `Added ${rec.name}.`);
      if (dup) toast('warning', dup);
      onDone();
    } catch (err) {
      setError(errorMessage(err));
    }
  }
  return (
    <form className="form" onSubmit={submit} noValidate>
      {FIELDS.map((f) => (
        <label key={f.key} className="field">
          <span className="field-label">{f.label}{f.required ? ' *' : ''}</span>
          <input className="input" data-testid={`server-${f.key}-input`} value={data[f.key]} aria-invalid={errors[f.key] ? true : undefined}
            onChange={(e) => setData({ ...data, [f.key]: e.target.value })} />
          {errors[f.key] && <span className="error-text small" role="alert" data-testid={`server-${f.key}-error`}>{errors[f.key]}</span>}
          {f.key === 'name' && dup && <span className="warn-text small" role="status" data-testid="server-duplicate-warning">{dup}</span>}
        </label>
      ))}
      {error && <p className="error-text" role="alert">{error}</p>}
      <div className="row-end">
        <button type="submit" className="button button-primary" data-testid="server-save">Save</button>
      </div>
    </form>
  );
}

type Filter = 'notes' | 'no-owner' | 'no-support' | 'comment' | 'linux' | 'windows';
type SortKey = 'name' | 'businessArea' | 'lob' | 'owner' | 'os';
const COLUMNS: { key: SortKey; label: string }[] = [
  { key: 'name', label: 'Name' },
  { key: 'businessArea', label: 'Business Area' },
  { key: 'lob', label: 'LOB' },
  { key: 'owner', label: 'Owner' },
  { key: 'os', label: 'OS' },
];

export default function ServersView() {
  const transport = useTransport();
  const toast = useToast();
  const shell = useShell();
  const col = useCollection<Server>('servers');
  const contacts = useCollection<Contact>('contacts').items;
  const people = useMemo(() => contactIndex(contacts), [contacts]);
  const { map: notes } = useEntityNotes('server', col.items);
  const [filters, setFilters] = useState<Set<Filter>>(new Set());
  const [tag, setTag] = useState('');
  const [sort, setSort] = useState<SortState<SortKey> | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [modal, setModal] = useState<null | 'add' | 'edit' | 'delete' | 'note' | 'sync'>(null);
  const tags = useMemo(() => tagChoices(notes.values()), [notes]);
  const [menu, setMenu] = useState<{ x: number; y: number } | null>(null);

  useEffect(() => {
    if (shell.focusRecord?.tab === 'servers') setSelected(shell.focusRecord.id);
  }, [shell.focusRecord]);

  const hasOs = useMemo(() => {
    const f = new Set(col.items.map((s) => osFamily(s.os)));
    return { linux: f.has('linux'), windows: f.has('windows') };
  }, [col.items]);
  const available: { id: Filter; label: string }[] = [
    { id: 'notes', label: 'Has Notes' },
    { id: 'no-owner', label: 'Missing Owner' },
    { id: 'no-support', label: 'Missing Support' },
    { id: 'comment', label: 'Has Comment' },
    ...(hasOs.linux ? [{ id: 'linux' as const, label: 'Linux' }] : []),
    ...(hasOs.windows ? [{ id: 'windows' as const, label: 'Windows' }] : []),
  ];
  const q = shell.listQuery.trim().toLowerCase();
  const visible = useMemo(
    () =>
      col.items.filter((s) => {
        if (!matchesQuery([s.name, s.businessArea, s.lob, s.comment, s.owner, s.contact, s.os], q)) return false;
        if (filters.has('notes') && !notes.get(s.id)?.note) return false;
        if (filters.has('no-owner') && !isBlankRef(s.owner)) return false;
        if (filters.has('no-support') && !isBlankRef(s.contact)) return false;
        if (filters.has('comment') && !s.comment?.trim()) return false;
        if (filters.has('linux') && osFamily(s.os) !== 'linux') return false;
        if (filters.has('windows') && osFamily(s.os) !== 'windows') return false;
        if (tag && !hasTag(notes.get(s.id), tag)) return false;
        return true;
      }),
    [col.items, q, filters, notes, tag],
  );
  // Owner sorts by the resolved person's name (as shown), else the stored reference.
  const shown = useMemo(
    () => sortRows(visible, sort, (s, k) => (k === 'owner' ? resolvePerson(s.owner, people)?.name ?? (isBlankRef(s.owner) ? '' : s.owner) : s[k])),
    [visible, sort, people],
  );
  const filtered = q !== '' || filters.size > 0 || tag !== '';
  const current = col.items.find((s) => s.id === selected) ?? null;
  const person = (v?: string) => {
    const p = resolvePerson(v, people);
    return p ? `${p.name}${p.email ? ` <${p.email}>` : ''}` : isBlankRef(v) ? '—' : v!;
  };

  return (
    <section className="view view-wide directory">
      <header className="view-header">
        <h1 className="view-title">Servers</h1>
        <span className="muted" data-testid="server-count">{col.status === 'ready' ? `${visible.length} of ${col.items.length}` : 'Loading…'}</span>
        <button type="button" className="button button-ghost push-right" data-testid="server-sync" onClick={() => setModal('sync')}>Sync from file…</button>
        <button type="button" className="button button-primary" data-testid="server-new" onClick={() => setModal('add')}>Add server</button>
      </header>
      <div className="chips" role="group" aria-label="Filters">
        {available.map((f) => (
          <button key={f.id} type="button" className={filters.has(f.id) ? 'chip chip-on' : 'chip'} aria-pressed={filters.has(f.id)}
            onClick={() => setFilters((s) => { const n = new Set(s); if (n.has(f.id)) n.delete(f.id); else n.add(f.id); return n; })}>
            {f.label}
          </button>
        ))}
        {tags.length > 0 && (
          <select className="input small" aria-label="Filter by tag" data-testid="server-tag-filter" value={tag} onChange={(e) => setTag(e.target.value)}>
            <option value="">All tags</option>
            {tags.map((t) => <option key={t} value={t}>#{t}</option>)}
          </select>
        )}
      </div>
      <SortHeader label="Sort servers" columns={COLUMNS} sort={sort} onSort={setSort} />
      {col.error && <p className="error-text" role="alert">{col.error}</p>}
      <div className="split">
        {col.status === 'ready' && col.items.length === 0 ? (
          <p className="muted empty">No servers yet.</p>
        ) : col.status === 'ready' && shown.length === 0 && filtered ? (
          <div className="muted empty grow" role="status" data-testid="servers-no-matches">
            <p>No matches</p>
            <button type="button" className="button button-ghost small" disabled={filters.size === 0 && !tag} onClick={() => { setFilters(new Set()); setTag(''); }}>Clear filters</button>
          </div>
        ) : (
          <VirtualList
            label="Servers"
            testId="server-list"
            items={shown}
            onOpen={(s) => setSelected(s.id)}
            render={(s, _i, rowProps) => (
              <div key={s.id} role="listitem" {...rowProps} aria-current={s.id === selected ? 'true' : undefined} className={s.id === selected ? 'vrow vrow-sel' : 'vrow'} data-testid="server-row" data-name={s.name}
                onClick={() => setSelected(s.id)}
                onContextMenu={(e) => { e.preventDefault(); setSelected(s.id); setMenu({ x: e.clientX, y: e.clientY }); }}
                onKeyDown={(e) => {
                  if (e.key === 'ContextMenu' || (e.shiftKey && e.key === 'F10')) {
                    e.preventDefault();
                    const r = e.currentTarget.getBoundingClientRect();
                    setSelected(s.id);
                    setMenu({ x: r.left + 40, y: r.bottom - 8 });
                  }
                }}>
                <span className={`os-badge os-${osFamily(s.os)}`}>{osFamily(s.os) === 'other' ? firstGraphemes(s.os || '?', 3) : osFamily(s.os) === 'linux' ? 'LNX' : 'WIN'}</span>
                <div className="vrow-main">
                  <div className="vrow-title">{s.name}</div>
                  <div className="muted small vrow-sub">{[s.businessArea, s.lob, s.os].filter(Boolean).join(' · ')}</div>
                </div>
                <div className="muted small nowrap vrow-meta">{resolvePerson(s.owner, people)?.name ?? (isBlankRef(s.owner) ? 'No owner' : s.owner)}</div>
              </div>
            )}
          />
        )}
        {current && (
          <aside className="panel detail" data-testid="server-detail" aria-label="Server details">
            <h2>{current.name}</h2>
            <dl className="kv">
              <dt>Business area</dt><dd>{current.businessArea || '—'}</dd>
              <dt>LOB</dt><dd>{current.lob || '—'}</dd>
              <dt>OS</dt><dd>{current.os || '—'}</dd>
              <dt>Comment</dt><dd>{current.comment || '—'}</dd>
              <dt>Owner</dt><dd>{person(current.owner)}</dd>
              <dt>Support</dt><dd>{person(current.contact)}</dd>
              <dt>Tags</dt>
              <dd data-testid="server-detail-tags">
                {(notes.get(current.id)?.tags ?? []).map((t) => <span key={t} className="pill">#{t}</span>)}
                {(notes.get(current.id)?.tags ?? []).length === 0 && '—'}
              </dd>
              <dt>Note</dt><dd className="pre">{notes.get(current.id)?.note || '—'}</dd>
            </dl>
            <div className="row-wrap">
              <button type="button" className="button button-ghost" onClick={() => setModal('note')}>Notes</button>
              <button type="button" className="button button-ghost" data-testid="server-edit" onClick={() => setModal('edit')}>Edit</button>
              <button type="button" className="button button-danger" data-testid="server-delete" onClick={() => setModal('delete')}>Delete</button>
            </div>
          </aside>
        )}
      </div>
      {menu && current && (
        <ContextMenu x={menu.x} y={menu.y} onClose={() => setMenu(null)} items={[
          { label: 'Notes', onSelect: () => setModal('note') },
          { label: 'Edit', onSelect: () => setModal('edit') },
          { label: 'Delete…', onSelect: () => setModal('delete'), danger: true },
        ]} />
      )}
      {modal === 'add' && <Modal title="Add server" onClose={() => setModal(null)}><ServerForm onDone={() => setModal(null)} /></Modal>}
      {modal === 'edit' && current && <Modal title="Edit server" onClose={() => setModal(null)}><ServerForm editing={current} onDone={() => setModal(null)} /></Modal>}
      {modal === 'sync' && <ServerSyncDialog onClose={() => setModal(null)} />}
      {modal === 'note' && current && <EntityNoteModal type="server" record={current} existing={notes.get(current.id)} label={current.name} onClose={() => setModal(null)} />}
      {modal === 'delete' && current && (
        <Confirm title="Delete server" message={`Delete server ${current.name}? This cannot be undone.`} onCancel={() => setModal(null)}
          onConfirm={async () => {
            setModal(null);
            try {
              await transport.remove('servers', current.id);
              col.store.removeLocal(current);
            } catch (e) {
              toast('error', errorMessage(e));
            }
          }} />
      )}
    </section>
  );
}
