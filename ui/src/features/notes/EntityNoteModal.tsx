// Note attached to a contact or a server: one row per record in `notes`, keyed by the record id
// (`id:<id>`, see lib/notes). Old rows keyed by email/name are still read, and saving one
// rewrites its key to the record id.
import { useMemo, useState } from 'react';
import { Modal } from '../../components/Modal';
import { TagInput } from '../../components/TagInput';
import { errorMessage, useToast } from '../../components/Toasts';
import { useCollection } from '../../data/store';
import { addTags, notesByRecord, recordNoteKey } from '../../lib/notes';
import { useTransport } from '../../transport/context';
import type { BaseRecord } from '../../transport/types';

export interface EntityNote extends BaseRecord {
  entityType: 'contact' | 'server';
  entityKey: string;
  note?: string;
  tags?: string[] | null;
}

/** Record id → note for `records` of `type` (id-keyed notes, then legacy email/name-keyed ones). */
export function useEntityNotes(type: 'contact' | 'server', records: readonly { id: string; created?: string; name?: string; email?: string }[]) {
  const col = useCollection<EntityNote>('notes');
  const map = useMemo(() => notesByRecord(type, col.items, records), [type, col.items, records]);
  return { map, store: col.store };
}

export function EntityNoteModal({
  type,
  record,
  existing,
  label,
  onClose,
}: {
  type: 'contact' | 'server';
  record: { id: string };
  existing: EntityNote | undefined;
  label: string;
  onClose: () => void;
}) {
  const transport = useTransport();
  const toast = useToast();
  const store = useCollection<EntityNote>('notes').store;
  const key = recordNoteKey(record.id);
  const [note, setNote] = useState(existing?.note ?? '');
  const [tags, setTags] = useState<string[]>(existing?.tags ?? []);
  const [tagDraft, setTagDraft] = useState('');
  async function save() {
    const data = { entityType: type, entityKey: key, note, tags: addTags(tags, tagDraft) };
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
        <TagInput tags={tags} draft={tagDraft} onTagsChange={setTags} onDraftChange={setTagDraft} testId="entity-note-tags" />
        <div className="row-end">
          <button type="button" className="button button-primary" data-testid="entity-note-save" onClick={save}>Save note</button>
        </div>
      </div>
    </Modal>
  );
}
