// Manage Groups for one address (the context menus of a Compose recipient and a People row): a
// checkbox per saved group, each change saved at once to that group's `contacts` (./recipientMenu
// withMembership), optimistic in the store and rolled back with an error toast when the server
// refuses. Creates no groups.
import { useState } from 'react';
import { Modal } from '../../components/Modal';
import { errorMessage, useToast } from '../../components/Toasts';
import { useCollection } from '../../data/store';
import { useTransport } from '../../transport/context';
import { BRIDGE_GROUPS, type GroupRecord } from './groups';
import { isMember, withMembership } from './recipientMenu';

export function ManageGroupsModal({ email, onClose }: { email: string; onClose: () => void }) {
  const transport = useTransport();
  const toast = useToast();
  const col = useCollection<GroupRecord>(BRIDGE_GROUPS);
  const [busy, setBusy] = useState<string | null>(null);
  const groups = [...col.items].sort((a, b) => a.name.localeCompare(b.name));

  async function set(g: GroupRecord, member: boolean) {
    setBusy(g.id);
    const contacts = withMembership(g.contacts, email, member);
    col.store.upsertLocal({ ...g, contacts });
    try {
      col.store.upsertLocal(await transport.update<GroupRecord>(BRIDGE_GROUPS, g.id, { contacts }));
    } catch (e) {
      col.store.upsertLocal(g);
      toast('error', `${g.name} not updated: ${errorMessage(e)}`);
    } finally {
      setBusy(null);
    }
  }

  return (
    <Modal title={`Groups for ${email}`} onClose={onClose} testId="manage-groups">
      {groups.length === 0 ? (
        <p className="muted">No groups yet. Save recipients as a group in Compose first.</p>
      ) : (
        <ul className="check-list" aria-label="Group membership">
          {groups.map((g) => (
            <li key={g.id}>
              <label>
                <input type="checkbox" data-testid="manage-group-check" data-name={g.name} checked={isMember(g, email)}
                  disabled={busy === g.id} onChange={(e) => void set(g, e.target.checked)} />{' '}
                {g.name} <span className="muted small">({g.contacts?.length ?? 0})</span>
              </label>
            </li>
          ))}
        </ul>
      )}
      <div className="row-end">
        <button type="button" className="button button-primary" data-testid="manage-groups-done" onClick={onClose}>Done</button>
      </div>
    </Modal>
  );
}
