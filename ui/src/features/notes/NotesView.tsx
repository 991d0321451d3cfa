// Notes tab: standalone tagged color cards, swap-reorder (drag a card onto another, or the
// arrow buttons), tag filter, font density S/M/L, editor modal, and on each card when it was last
// updated ("Updated 5 min ago", the exact time in its title: ./noteStamp). Live via realtime.
import { useMemo, useState } from 'react';
import { Confirm, Modal } from '../../components/Modal';
import { TagInput } from '../../components/TagInput';
import { errorMessage, useToast } from '../../components/Toasts';
import { useCollection } from '../../data/store';
import { copyText } from '../../lib/clipboard';
import { NOTE_COLORS, addTags, noteColor, sortNotes, swapNotes, type StandaloneNote } from '../../lib/notes';
import { useNow } from '../../lib/useNow';
import { useTransport } from '../../transport/context';
import type { BaseRecord } from '../../transport/types';
import { useShell } from '../shell/ShellContext';
import { noteStamp } from './noteStamp';

type Note = StandaloneNote & BaseRecord;
const SIZES = ['S', 'M', 'L'] as const;
const SIZE_KEY = 'relay-notepad-fontsize';

function NoteBody({ text }: { text: string }) {
  const lines = text.split('\n');
  return (
    <div className="note-content">
      {lines.map((l, i) =>
        l.startsWith('- ') ? <div key={i} className="note-bullet">• {l.slice(2)}</div> : /^\d+\. /.test(l) ? <div key={i} className="note-bullet">{l}</div> : <div key={i}>{l || '\u00a0'}</div>,
      )}
    </div>
  );
}

function NoteEditor({ note, nextOrder, onClose }: { note?: Note; nextOrder: number; onClose: () => void }) {
  const transport = useTransport();
  const store = useCollection<Note>('standalone_notes').store;
  const [title, setTitle] = useState(note?.title ?? '');
  const [content, setContent] = useState(note?.content ?? '');
  const [color, setColor] = useState(noteColor(note?.color));
  const [tags, setTags] = useState<string[]>(note?.tags ?? []);
  const [tagDraft, setTagDraft] = useState('');
  const [error, setError] = useState<string | null>(null);
  async function save() {
    if (!title.trim() && !content.trim()) return setError('A note needs a title or content.');
    const data = { title: title.trim().slice(0, 200), content, color, tags: addTags(tags, tagDraft) };
    try {
      const rec = note ? await transport.update<Note>('standalone_notes', note.id, data) : await transport.create<Note>('standalone_notes', { ...data, sortOrder: nextOrder });
      store.upsertLocal(rec);
      onClose();
    } catch (e) {
      setError(errorMessage(e));
    }
  }
  return (
    <Modal title={note ? 'Edit note' : 'New note'} onClose={onClose} testId="note-editor">
      <div className="form" onKeyDown={(e) => (e.metaKey || e.ctrlKey) && e.key === 'Enter' && save()}>
        <input className="input" data-testid="note-title" placeholder="Title" maxLength={200} aria-label="Title" value={title} onChange={(e) => setTitle(e.target.value)} />
        <textarea className="input textarea" data-testid="note-content" rows={8} placeholder="Content (- bullets, 1. numbers)" aria-label="Content" value={content} onChange={(e) => setContent(e.target.value)} />
        <div className="row-wrap" role="radiogroup" aria-label="Color">
          {NOTE_COLORS.map((c) => (
            <button key={c} type="button" role="radio" aria-checked={color === c} aria-label={c} data-testid={`note-color-${c}`} className={`swatch note-${c}${color === c ? ' swatch-on' : ''}`} onClick={() => setColor(c)} />
          ))}
        </div>
        <TagInput tags={tags} draft={tagDraft} onTagsChange={setTags} onDraftChange={setTagDraft} testId="note-tags" />
        {error && <p className="error-text" role="alert">{error}</p>}
        <div className="row-end">
          <button type="button" className="button button-primary" data-testid="note-save" onClick={save}>Save</button>
        </div>
      </div>
    </Modal>
  );
}

export default function NotesView() {
  const transport = useTransport();
  const toast = useToast();
  const shell = useShell();
  const col = useCollection<Note>('standalone_notes');
  const [size, setSize] = useState<(typeof SIZES)[number]>(() => (localStorage.getItem(SIZE_KEY) as 'S') || 'M');
  const [tag, setTag] = useState<string | null>(null);
  const [editing, setEditing] = useState<Note | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Note | null>(null);
  const [dragId, setDragId] = useState<string | null>(null);
  const now = useNow(30_000);
  const notes = useMemo(() => sortNotes(col.items), [col.items]);
  const allTags = useMemo(() => [...new Set(notes.flatMap((n) => n.tags ?? []))].sort(), [notes]);
  const q = shell.listQuery.trim().toLowerCase();
  const shown = notes.filter(
    (n) =>
      (!tag || (n.tags ?? []).includes(tag)) &&
      (!q || [n.title, n.content, ...(n.tags ?? [])].some((f) => f?.toLowerCase().includes(q))),
  );

  async function swap(a: string, b: string) {
    const patches = swapNotes(notes, a, b);
    for (const p of patches) {
      const n = notes.find((x) => x.id === p.id)!;
      col.store.upsertLocal({ ...n, sortOrder: p.sortOrder });
    }
    try {
      for (const p of patches) col.store.upsertLocal(await transport.update<Note>('standalone_notes', p.id, { sortOrder: p.sortOrder }));
    } catch (e) {
      toast('error', errorMessage(e));
      col.store.load();
    }
  }
  async function duplicate(n: Note) {
    try {
      const idx = notes.findIndex((x) => x.id === n.id);
      const rec = await transport.create<Note>('standalone_notes', { title: `${n.title ?? ''} (copy)`, content: n.content ?? '', color: noteColor(n.color), tags: n.tags ?? [], sortOrder: (n.sortOrder ?? idx) + 0.5 });
      col.store.upsertLocal(rec);
      const ordered = sortNotes([...notes, rec]);
      for (const [i, x] of ordered.entries()) if (x.sortOrder !== i) col.store.upsertLocal(await transport.update<Note>('standalone_notes', x.id, { sortOrder: i }));
    } catch (e) {
      toast('error', errorMessage(e));
    }
  }

  return (
    <section className="view view-wide">
      <header className="view-header">
        <h1 className="view-title">Notes</h1>
        <div className="seg" role="group" aria-label="Font size">
          {SIZES.map((s) => (
            <button key={s} type="button" aria-pressed={size === s} className={size === s ? 'seg-btn seg-on' : 'seg-btn'} onClick={() => { setSize(s); localStorage.setItem(SIZE_KEY, s); }}>{s}</button>
          ))}
        </div>
        <button type="button" className="button button-primary push-right" data-testid="note-new" onClick={() => setEditing('new')}>New note</button>
      </header>
      {allTags.length > 0 && (
        <div className="chips">
          <button type="button" className={tag === null ? 'chip chip-on' : 'chip'} onClick={() => setTag(null)}>All</button>
          {allTags.map((t) => <button key={t} type="button" className={tag === t ? 'chip chip-on' : 'chip'} onClick={() => setTag(t === tag ? null : t)}>#{t}</button>)}
        </div>
      )}
      {col.status === 'ready' && notes.length === 0 && <p className="muted">No notes yet.</p>}
      <div className={`notes-grid notes-${size}`} data-testid="notes-grid">
        {shown.map((n, i) => (
          <article
            key={n.id}
            className={`note-card note-${noteColor(n.color)}${dragId === n.id ? ' dragging' : ''}`}
            data-testid="note-card"
            data-id={n.id}
            draggable
            onDragStart={(e) => { setDragId(n.id); e.dataTransfer.setData('text/plain', n.id); e.dataTransfer.effectAllowed = 'move'; }}
            onDragEnd={() => setDragId(null)}
            onDragOver={(e) => e.preventDefault()}
            onDrop={(e) => { e.preventDefault(); const from = e.dataTransfer.getData('text/plain'); if (from && from !== n.id) void swap(from, n.id); setDragId(null); }}
          >
            <header className="note-head">
              <h2 className="note-title">{n.title || 'Untitled'}</h2>
            </header>
            <NoteBody text={n.content ?? ''} />
            {(() => {
              const stamp = noteStamp(n.updated, now);
              return stamp && <time className="note-updated muted small" dateTime={stamp.iso} title={stamp.exact} data-testid="note-updated">{stamp.text}</time>;
            })()}
            <footer className="note-foot">
              <span className="pills">{(n.tags ?? []).slice(0, 3).map((t) => <span key={t} className="pill">#{t}</span>)}</span>
              <span className="note-actions">
                <button type="button" className="icon-btn" aria-label="Move left" disabled={i === 0} onClick={() => swap(n.id, shown[i - 1].id)}>←</button>
                <button type="button" className="icon-btn" aria-label="Move right" disabled={i === shown.length - 1} onClick={() => swap(n.id, shown[i + 1].id)}>→</button>
                <button type="button" className="icon-btn" aria-label="Copy" onClick={() => copyText(`${n.title ?? ''}\n${n.content ?? ''}`).then(() => toast('success', 'Copied.'), (e) => toast('error', errorMessage(e, 'Could not copy.')))}>Copy</button>
                <button type="button" className="icon-btn" aria-label="Edit" onClick={() => setEditing(n)}>✎</button>
                <button type="button" className="icon-btn" onClick={() => duplicate(n)}>Duplicate</button>
                <button type="button" className="icon-btn" aria-label="Delete" onClick={() => setDeleting(n)}>✕</button>
              </span>
            </footer>
          </article>
        ))}
      </div>
      {editing && <NoteEditor note={editing === 'new' ? undefined : editing} nextOrder={notes.length} onClose={() => setEditing(null)} />}
      {deleting && (
        <Confirm title="Delete note" message={`Delete "${deleting.title || 'Untitled'}"?`} onCancel={() => setDeleting(null)}
          onConfirm={async () => {
            const n = deleting;
            setDeleting(null);
            try { await transport.remove('standalone_notes', n.id); col.store.removeLocal(n); } catch (e) { toast('error', errorMessage(e)); }
          }} />
      )}
    </section>
  );
}
