// Note attached to a contact (key = lowercased email) or a server (key = lowercased name):
// one row per entity in `notes`; look it up, then update or create.
import { useMemo, useState } from 'react';
import { Modal } from '../../components/Modal';
import { errorMessage, useToast } from '../../components/Toasts';
import { useCollection } from '../../data/store';
import { entityKey, parseTags } from '../../lib/notes';
import { useTransport } from '../../transport/context';
import type { BaseRecord } from '../../transport/types';

export interface EntityNote extends BaseRecord {
  entityType: 'contact' | 'server';
  entityKey: string;
  note?: string;
  tags?: string[] | null;
}

export function useEntityNotes() {
  const col = useCollection<EntityNote>('notes');
  const map = useMemo(() => {
    const m = new Map<string, EntityNote>();
    for (const n of col.items) m.set(`${n.entityType}:${n.entityKey}`, n);
    return m;
  }, [col.items]);
  return { map, store: col.store };
}

export function EntityNoteModal({ type, value, label, onClose }: { type: 'contact' | 'server'; value: string; label: string; onClose: () => void }) {
  const transport = useTransport();
  const toast = useToast();
  const { map, store } = useEntityNotes();
  const key = entityKey(type, value);
  const existing = map.get(`${type}:${key}`);
  const [note, setNote] = useState(existing?.note ?? '');
  const [tags, setTags] = useState((existing?.tags ?? []).join(', '));
  async function save() {
    const data = { entityType: type, entityKey: key, note, tags: parseTags(tags) };
    try {
      const rec = existing
        ? await transport.update<EntityNote>('notes', existing.id, data)
        : await transport.create<EntityNote>('notes', data);
      store.upsertLocal(rec);
      toast('success', 'Note saved.');
      onClose();
    } catch (e) {
      toast('error', errorMessage(e));
    }
  }
  return (
    <Modal title={`Notes — ${label}`} onClose={onClose} testId="entity-note-dialog">
      <div className="form">
        <textarea className="input textarea" rows={6} data-testid="entity-note-text" aria-label="Note" value={note} onChange={(e) => setNote(e.target.value)} />
        <input className="input" aria-label="Tags" placeholder="tags, comma separated" value={tags} onChange={(e) => setTags(e.target.value)} />
        <div className="row-end">
          <button type="button" className="button button-primary" data-testid="entity-note-save" onClick={save}>Save note</button>
        </div>
      </div>
    </Modal>
  );
}
