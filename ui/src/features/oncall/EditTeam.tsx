// The On-Call "Edit team" dialog: the team's rows (role, name, phone, time window), reordered with
// the arrows, added and removed; Save replaces the team's records (updates kept ids, creates new
// rows, deletes dropped ones, sortOrder = index). Role offers the usual roles; Name is a combobox
// fed from People contacts (./contactPicker): a picked suggestion fills that contact's phone (by
// contact id), a name typed in full fills the phone only when exactly one contact has it, and a
// name shared by several contacts says so instead of picking one.
import { Fragment, useState } from 'react';
import { Combobox } from '../../components/Combobox';
import { Modal } from '../../components/Modal';
import { errorMessage, useToast } from '../../components/Toasts';
import { useCollection } from '../../data/store';
import { moveItem, type OnCallRow, type TeamCard } from '../../lib/board';
import { validateRecord } from '../../lib/limits';
import { formatPhone, sanitizePhone } from '../../lib/phone';
import { useTransport } from '../../transport/context';
import type { BaseRecord } from '../../transport/types';
import type { Contact } from '../people/contacts';
import { ambiguousNameHint, nameSuggestions, typedNameMatch } from './contactPicker';

type Row = OnCallRow & BaseRecord;
/** A row being edited; `pickedId` is the contact last picked from the Name suggestions. */
type EditRow = Partial<Row> & { pickedId?: string };

const ROLES = ['Primary', 'Secondary', 'Backup', 'Backup/Weekend', 'Weekend', 'Shadow', 'Escalation', 'Network', 'Telecom', 'Member'];

export function EditTeam({ card, onClose }: { card: TeamCard; onClose: () => void }) {
  const transport = useTransport();
  const toast = useToast();
  const store = useCollection<Row>('oncall').store;
  const contacts = useCollection<Contact>('contacts').items;
  const [rows, setRows] = useState<EditRow[]>(() => card.rows.map((r) => ({ ...r, contact: formatPhone(r.contact) })));
  const [busy, setBusy] = useState(false);
  const upd = (i: number, p: EditRow) => setRows((rs) => rs.map((r, j) => (j === i ? { ...r, ...p } : r)));
  const rowErrors = rows.map((r) => validateRecord('oncall', { team: card.team, role: r.role ?? '', name: r.name ?? '', contact: sanitizePhone(r.contact ?? ''), timeWindow: r.timeWindow ?? '' }));
  const invalid = rowErrors.some((e) => Object.keys(e).length > 0);

  function pickContact(i: number, id: string) {
    const c = contacts.find((x) => x.id === id);
    if (!c) return;
    upd(i, { name: c.name.trim(), pickedId: c.id, ...(c.phone ? { contact: formatPhone(c.phone) } : {}) });
  }
  /** A name typed in full: fills an empty phone only when exactly one contact has that name. */
  function nameLeft(i: number) {
    const r = rows[i];
    if (r.pickedId || r.contact?.trim()) return;
    const match = typedNameMatch(r.name ?? '', contacts);
    if (match.kind === 'one' && match.contact.phone) upd(i, { contact: formatPhone(match.contact.phone) });
  }
  /** Why the phone was not filled from the name: several contacts have it and none was picked. */
  function nameHint(r: EditRow): string | null {
    if (r.pickedId || r.contact?.trim()) return null;
    const match = typedNameMatch(r.name ?? '', contacts);
    return match.kind === 'many' ? ambiguousNameHint(r.name ?? '', match.count) : null;
  }

  async function save() {
    if (invalid) return;
    setBusy(true);
    try {
      const keep = new Set(rows.map((r) => r.id).filter(Boolean));
      for (const [i, r] of rows.entries()) {
        const data = { team: card.team, teamId: card.teamId, role: r.role ?? '', name: (r.name ?? '').trim(), contact: sanitizePhone(r.contact ?? ''), timeWindow: (r.timeWindow ?? '').trim(), sortOrder: i };
        store.upsertLocal(r.id ? await transport.update<Row>('oncall', r.id, data) : await transport.create<Row>('oncall', data));
      }
      for (const r of card.rows) if (!keep.has(r.id)) { await transport.remove('oncall', r.id); store.removeLocal(r as Row); }
      toast('success', `${card.team} saved.`);
      onClose();
    } catch (e) {
      toast('error', errorMessage(e));
    } finally {
      setBusy(false);
    }
  }
  return (
    <Modal title={`Edit ${card.team}`} onClose={onClose} wide testId="edit-team">
      <table className="table edit-rows">
        <thead><tr><th>Role</th><th>Name</th><th>Phone</th><th>Time window</th><th><span className="visually-hidden">Actions</span></th></tr></thead>
        <tbody>
          {rows.map((r, i) => {
            const hint = nameHint(r);
            const hintId = `edit-row-${i}-name-hint`;
            return (
              <Fragment key={r.id ?? `new-${i}`}>
                <tr data-testid="edit-row">
                  <td>
                    <input className="input" list="oncall-roles" aria-label="Role" value={r.role ?? ''} onChange={(e) => upd(i, { role: e.target.value })} />
                  </td>
                  <td>
                    <Combobox label="Name" testId="edit-row-name" value={r.name ?? ''} describedBy={hint ? hintId : undefined}
                      options={nameSuggestions(r.name ?? '', contacts)}
                      onChange={(name) => upd(i, { name, pickedId: undefined })}
                      onPick={(o) => pickContact(i, o.id)}
                      onBlur={() => nameLeft(i)} />
                  </td>
                  <td><input className="input" aria-label="Phone" data-testid="edit-row-phone" value={r.contact ?? ''} onChange={(e) => upd(i, { contact: e.target.value })} onBlur={() => upd(i, { contact: formatPhone(r.contact) })} /></td>
                  <td><input className="input" aria-label="Time window" data-testid="edit-row-window" placeholder="e.g. Mon-Fri 8am-5pm" value={r.timeWindow ?? ''} onChange={(e) => upd(i, { timeWindow: e.target.value })} /></td>
                  <td className="nowrap">
                    <button type="button" className="icon-btn" aria-label="Move up" disabled={i === 0} onClick={() => setRows((rs) => moveItem(rs, i, i - 1))}>↑</button>
                    <button type="button" className="icon-btn" aria-label="Move down" disabled={i === rows.length - 1} onClick={() => setRows((rs) => moveItem(rs, i, i + 1))}>↓</button>
                    <button type="button" className="icon-btn" aria-label="Remove row" onClick={() => setRows((rs) => rs.filter((_, j) => j !== i))}>✕</button>
                  </td>
                </tr>
                {hint && (
                  <tr><td colSpan={5} className="warn-text small" id={hintId} data-testid="edit-row-name-hint">{hint}</td></tr>
                )}
                {Object.keys(rowErrors[i]).length > 0 && (
                  <tr><td colSpan={5} className="error-text small" role="alert" data-testid="edit-row-error">{Object.values(rowErrors[i]).join(' ')}</td></tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
      <datalist id="oncall-roles">{ROLES.map((r) => <option key={r} value={r} />)}</datalist>
      <div className="row-end">
        <button type="button" className="button button-ghost" onClick={() => setRows((rs) => [...rs, { role: 'Member', name: '', contact: '', timeWindow: '' }])}>Add row</button>
        <button type="button" className="button button-primary" data-testid="edit-team-save" disabled={busy || invalid} onClick={save}>Save</button>
      </div>
    </Modal>
  );
}
