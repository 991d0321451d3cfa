// Compose: pick saved groups and contacts; recipients = (group emails ∪ manual adds) − manual
// removes; Copy (emails joined by "; ") and Start Bridge (Teams draft, ./BridgeActions) save a
// bridge_history row (and, sent, drop this window's stored recipients draft: the Shell keeps it
// through lib/windowDrafts until then); Schedule Bridge saves an .ics invitation; history;
// manage groups. The add box is a combobox of contacts with an email: Enter adds an address as
// typed or the best match, and says inline why when the entry is neither.
// Context menus (right-click, Shift+F10 or the ContextMenu key; rules in ./recipientMenu): a
// recipient offers Save to Contacts (unknown addresses: the Add contact form, prefilled), Manage
// Groups (./ManageGroupsModal) and Remove from List; a bridge history entry offers Use again,
// Copy recipients, Save as Group and Delete (confirmed).
import { useMemo, useState } from 'react';
import { Combobox } from '../../components/Combobox';
import { ContextMenu } from '../../components/ContextMenu';
import { menuTrigger, type MenuAt } from '../../components/menuTrigger';
import { Confirm, Modal } from '../../components/Modal';
import { errorMessage, useToast } from '../../components/Toasts';
import { VirtualList } from '../../components/VirtualList';
import { useCollection } from '../../data/store';
import { copyText } from '../../lib/clipboard';
import { formatDateTime } from '../../lib/dates';
import { formatPhone } from '../../lib/phone';
import { addBoxRefusal, COMPOSE_DRAFT, computeRecipients, recipientsText, sortRecipients, validateGroupName, type RecipientSortKey } from '../../lib/recipients';
import { EMAIL_RE, rankSearch } from '../../lib/search';
import { plural } from '../../lib/text';
import { clearDraft } from '../../lib/windowDrafts';
import { useTransport } from '../../transport/context';
import { ContactForm } from '../people/ContactForm';
import type { Contact } from '../people/contacts';
import { useShell } from '../shell/ShellContext';
import { BridgeActions } from './BridgeActions';
import { initials, type BridgeHistory, type GroupRecord } from './groups';
import { ManageGroupsModal } from './ManageGroupsModal';
import { HISTORY_ACTIONS, historyRecipientsText, recipientActions } from './recipientMenu';

function GroupNameModal({
  title,
  initial,
  groups,
  exceptId,
  onSave,
  onClose,
}: {
  title: string;
  initial: string;
  groups: GroupRecord[];
  exceptId?: string;
  onSave: (name: string) => Promise<void>;
  onClose: () => void;
}) {
  const [name, setName] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  return (
    <Modal title={title} onClose={onClose} testId="group-name-dialog">
      <form
        className="form"
        onSubmit={async (e) => {
          e.preventDefault();
          const err = validateGroupName(name, groups, exceptId);
          if (err) return setError(err);
          try {
            await onSave(name.trim());
            onClose();
          } catch (x) {
            setError(errorMessage(x));
          }
        }}
      >
        <label className="field-label" htmlFor="group-name">Group name</label>
        <input id="group-name" className="input" data-testid="group-name-input" value={name} onChange={(e) => setName(e.target.value)} />
        {error && <p className="error-text" role="alert" data-testid="group-name-error">{error}</p>}
        <div className="row-end">
          <button type="submit" className="button button-primary" data-testid="group-name-save">Save</button>
        </div>
      </form>
    </Modal>
  );
}

export function ComposeView() {
  const transport = useTransport();
  const toast = useToast();
  const { compose, composeDispatch } = useShell();
  const contacts = useCollection<Contact>('contacts').items;
  const groupsCol = useCollection<GroupRecord>('bridge_groups');
  const groups = groupsCol.items;
  const historyCol = useCollection<BridgeHistory>('bridge_history');
  const history = historyCol.items;
  const historyStore = historyCol.store;
  const [pick, setPick] = useState('');
  // Why Enter added nothing (neither an address nor a contact with one), until the text changes.
  const [addError, setAddError] = useState<string | null>(null);
  const [modal, setModal] = useState<
    | null
    | { kind: 'new'; emails?: string[] }
    | { kind: 'rename'; g: GroupRecord }
    | { kind: 'delete'; g: GroupRecord }
    | { kind: 'history' }
    | { kind: 'clear-history' }
    | { kind: 'delete-history'; h: BridgeHistory }
    | { kind: 'save-contact'; email: string }
    | { kind: 'manage-groups'; email: string }
  >(null);
  const [recipientMenu, setRecipientMenu] = useState<MenuAt<string>>(null);
  const [historyMenu, setHistoryMenu] = useState<MenuAt<BridgeHistory>>(null);
  const [groupMenu, setGroupMenu] = useState<{ x: number; y: number; g: GroupRecord } | null>(null);
  const [sortKey, setSortKey] = useState<RecipientSortKey | null>(null);
  const [sortDir, setSortDir] = useState<'asc' | 'desc'>('asc');

  const byEmail = useMemo(() => {
    const m = new Map<string, Contact>();
    for (const c of contacts) if (c.email) m.set(c.email.toLowerCase(), c);
    return m;
  }, [contacts]);
  const recipients = useMemo(() => computeRecipients(groups, compose), [groups, compose]);
  const shown = useMemo(() => sortRecipients(recipients, (e) => byEmail.get(e), sortKey, sortDir), [recipients, byEmail, sortKey, sortDir]);
  const suggestions = useMemo(() => {
    if (!pick.trim()) return [];
    return rankSearch(
      pick,
      contacts.filter((c) => c.email).map((c) => ({ kind: 'contact' as const, id: c.id, label: c.name, detail: c.email, fields: [c.name, c.email, c.title] })),
      8,
    );
  }, [pick, contacts]);
  const selectedNames = groups.filter((g) => compose.groups.includes(g.id)).map((g) => g.name);

  function addEmail(email: string) {
    composeDispatch({ type: 'add', email });
    setPick('');
    setAddError(null);
  }
  /** Enter in the add box: an address as typed, else the best matching contact, else why neither. */
  function addTyped() {
    const typed = pick.trim();
    if (!typed) return;
    if (EMAIL_RE.test(typed)) return addEmail(typed);
    if (suggestions[0]?.detail) return addEmail(suggestions[0].detail);
    setAddError(addBoxRefusal(typed));
  }

  async function copy() {
    if (recipients.length === 0) return toast('warning', 'No recipients to copy.');
    try {
      await copyText(recipientsText(recipients));
      toast('success', `Copied ${plural(recipients.length, 'recipient')}.`);
    } catch (e) {
      return toast('error', errorMessage(e, 'Copy failed.'));
    }
    await saveHistory();
  }

  async function saveHistory() {
    try {
      const rec = await transport.create<BridgeHistory>('bridge_history', {
        note: '',
        groups: selectedNames,
        contacts: recipients.map((r) => r.email),
        recipientCount: recipients.length,
      });
      historyStore.upsertLocal(rec);
      clearDraft(COMPOSE_DRAFT); // sent: it lives in History now, not in this window's draft
    } catch (e) {
      toast('error', `History not saved: ${errorMessage(e)}`);
    }
  }

  function loadHistory(h: BridgeHistory) {
    const ids = groups.filter((g) => (h.groups ?? []).some((n) => n.toLowerCase() === g.name.toLowerCase())).map((g) => g.id);
    const inGroups = new Set(groups.filter((g) => ids.includes(g.id)).flatMap((g) => (g.contacts ?? []).map((e) => e.toLowerCase())));
    composeDispatch({ type: 'load', groups: ids, adds: (h.contacts ?? []).filter((e) => !inGroups.has(e.toLowerCase())) });
    setModal(null);
  }

  const uniqueAll = new Set(groups.flatMap((g) => (g.contacts ?? []).map((e) => e.toLowerCase()))).size;

  return (
    <section className="view view-wide compose">
      <header className="view-header">
        <h1 className="view-title">Compose</h1>
        <span className="muted">Bridge assembler</span>
      </header>
      <div className="compose-grid">
        <aside className="panel groups-panel" aria-label="Groups">
          <div className="panel-head">
            <h2>Groups</h2>
            <button type="button" className="button button-ghost" data-testid="group-new" title="Create a group from the current recipients" disabled={recipients.length === 0} onClick={() => setModal({ kind: 'new' })}>
              + Save as group
            </button>
          </div>
          {groups.length === 0 && <p className="muted">No groups yet.</p>}
          <ul className="group-list">
            {groups.map((g) => {
              const on = compose.groups.includes(g.id);
              return (
                <li key={g.id} className={on ? 'group-item group-on' : 'group-item'} data-testid="group-item" data-name={g.name}
                  onContextMenu={(e) => { e.preventDefault(); setGroupMenu({ x: e.clientX, y: e.clientY, g }); }}>
                  <button type="button" className="group-toggle" aria-pressed={on} onClick={() => composeDispatch({ type: 'toggle-group', id: g.id })}>
                    <span className="token">{initials(g.name)}</span>
                    <span className="group-name" title={g.name}>{g.name}</span>
                    <span className="muted group-count" data-testid="group-count">{g.contacts?.length ?? 0}</span>
                  </button>
                  <button type="button" className="icon-btn" data-testid="group-edit" aria-label={`Rename ${g.name}`} onClick={() => setModal({ kind: 'rename', g })}>✎</button>
                  <button type="button" className="icon-btn" data-testid="group-delete" aria-label={`Delete ${g.name}`} onClick={() => setModal({ kind: 'delete', g })}>✕</button>
                </li>
              );
            })}
          </ul>
          <p className="muted small">
            {uniqueAll} unique across all groups · {computeRecipients(groups, { ...compose, adds: [], removes: [] }).length} in selected
          </p>
        </aside>
        <div className="panel recipients-panel">
          <div className="toolbar compose-toolbar">
            <div className="picker">
              <Combobox label="Add recipient" testId="compose-add-input" listTestId="compose-suggestions" placeholder="Add a contact or email…"
                value={pick} invalid={addError !== null} describedBy={addError ? 'compose-add-error' : undefined}
                options={suggestions.map((s) => ({ id: s.id, label: s.label, detail: s.detail }))}
                onChange={(text) => { setPick(text); setAddError(null); }}
                onPick={(o) => o.detail && addEmail(o.detail)}
                onEnter={addTyped} />
              {addError && <p id="compose-add-error" className="error-text small" role="alert" data-testid="compose-add-error">{addError}</p>}
            </div>
            <div className="toolbar-actions" data-testid="compose-actions">
              <button type="button" className="button button-ghost" onClick={() => composeDispatch({ type: 'undo' })} disabled={compose.undo.length === 0}>Undo</button>
              <button type="button" className="button button-ghost" onClick={() => composeDispatch({ type: 'reset' })}>Reset</button>
              <button type="button" className="button button-ghost" data-testid="compose-history" onClick={() => setModal({ kind: 'history' })}>History</button>
              <span className="push-right" aria-hidden="true" />
              <BridgeActions attendees={recipients.map((r) => ({ email: r.email, name: byEmail.get(r.email.toLowerCase())?.name }))} onStarted={saveHistory} />
              <button type="button" className="button button-primary" data-testid="compose-copy" onClick={copy}>Copy All ({recipients.length})</button>
            </div>
          </div>
          <div className="sort-bar muted small">
            Sort:
            <select className="input small" aria-label="Sort recipients" data-testid="recipient-sort" value={sortKey ?? ''} onChange={(e) => setSortKey((e.target.value || null) as RecipientSortKey | null)}>
              <option value="">Added order</option>
              <option value="name">Name</option>
              <option value="email">Email</option>
              <option value="title">Title</option>
              <option value="phone">Phone</option>
            </select>
            <button type="button" className="button button-ghost small" aria-label={`${sortDir === 'asc' ? 'Asc' : 'Desc'} (sort direction)`} disabled={!sortKey} onClick={() => setSortDir((d) => (d === 'asc' ? 'desc' : 'asc'))}>
              {sortDir === 'asc' ? '↑ Asc' : '↓ Desc'}
            </button>
            <span className="push-right" data-testid="recipient-count">{plural(recipients.length, 'recipient')}</span>
          </div>
          {recipients.length === 0 ? (
            <p className="muted empty">Pick groups or add contacts to build the bridge.</p>
          ) : (
            <VirtualList
              label="Recipients"
              testId="recipient-list"
              items={shown}
              render={(r) => {
                const c = byEmail.get(r.email.toLowerCase());
                return (
                  <div key={r.email} role="listitem" className="vrow" data-testid="recipient-row" data-email={r.email} tabIndex={0}
                    aria-label={`${c?.name ?? r.email} (Shift+F10 for actions)`} {...menuTrigger(r.email, setRecipientMenu)}>
                    <span className="avatar">{initials(c?.name ?? r.email)}</span>
                    <div className="vrow-main">
                      <div className="vrow-title">{c?.name ?? r.email.split('@')[0]}</div>
                      <div className="muted small vrow-sub">{[r.email, c?.title, formatPhone(c?.phone)].filter(Boolean).join(' · ')}</div>
                    </div>
                    <div className="pills">
                      {r.manual && <span className="pill pill-manual">MANUAL</span>}
                      {r.groups.map((g) => <span key={g} className="pill">{g}</span>)}
                    </div>
                    <button type="button" className="icon-btn" aria-label={`Remove ${r.email}`} onClick={() => composeDispatch({ type: 'remove', email: r.email })}>✕</button>
                  </div>
                );
              }}
            />
          )}
        </div>
      </div>
      {recipientMenu && (
        <ContextMenu x={recipientMenu.x} y={recipientMenu.y} label={`Actions for ${recipientMenu.item}`} testId="recipient-menu" onClose={() => setRecipientMenu(null)}
          items={recipientActions(byEmail.has(recipientMenu.item.toLowerCase())).map(({ action, label, danger }) => ({
            label,
            danger,
            onSelect: () => {
              const email = recipientMenu.item;
              if (action === 'remove') composeDispatch({ type: 'remove', email });
              else setModal({ kind: action, email });
            },
          }))} />
      )}
      {modal?.kind === 'save-contact' && (
        <Modal title="New contact" onClose={() => setModal(null)} testId="save-contact">
          <ContactForm initial={{ email: modal.email }} onDone={() => setModal(null)} />
        </Modal>
      )}
      {modal?.kind === 'manage-groups' && <ManageGroupsModal email={modal.email} onClose={() => setModal(null)} />}
      {modal?.kind === 'delete-history' && (
        <Confirm
          title="Delete bridge history entry"
          message={`Delete the bridge of ${formatDateTime(modal.h.created)} (${plural(modal.h.recipientCount ?? modal.h.contacts?.length ?? 0, 'recipient')})?`}
          confirmLabel="Delete"
          onCancel={() => setModal({ kind: 'history' })}
          onConfirm={async () => {
            const h = modal.h;
            setModal({ kind: 'history' });
            try {
              await transport.remove('bridge_history', h.id);
              historyStore.removeLocal(h);
            } catch (e) {
              toast('error', errorMessage(e));
            }
          }}
        />
      )}
      {groupMenu && (
        <ContextMenu x={groupMenu.x} y={groupMenu.y} onClose={() => setGroupMenu(null)} items={[
          { label: 'Load Group', onSelect: () => composeDispatch({ type: 'load', groups: [groupMenu.g.id], adds: [] }) },
          {
            label: 'Update with Current',
            disabled: recipients.length === 0,
            onSelect: () =>
              transport
                .update<GroupRecord>('bridge_groups', groupMenu.g.id, { contacts: recipients.map((r) => r.email) })
                .then((g) => { groupsCol.store.upsertLocal(g); toast('success', `${g.name} updated (${g.contacts?.length ?? 0}).`); })
                .catch((e) => toast('error', errorMessage(e))),
          },
          { label: 'Rename', onSelect: () => setModal({ kind: 'rename', g: groupMenu.g }) },
          { label: 'Delete Group', danger: true, onSelect: () => setModal({ kind: 'delete', g: groupMenu.g }) },
        ]} />
      )}
      {modal?.kind === 'new' && (
        <GroupNameModal
          title={modal.emails ? 'Save bridge as group' : 'New group from recipients'}
          initial=""
          groups={groups}
          onClose={() => setModal(null)}
          onSave={async (name) => {
            const g = await transport.create<GroupRecord>('bridge_groups', { name, contacts: modal.emails ?? recipients.map((r) => r.email) });
            groupsCol.store.upsertLocal(g);
            toast('success', `Group "${name}" created.`);
          }}
        />
      )}
      {modal?.kind === 'rename' && (
        <GroupNameModal
          title={`Rename ${modal.g.name}`}
          initial={modal.g.name}
          groups={groups}
          exceptId={modal.g.id}
          onClose={() => setModal(null)}
          onSave={async (name) => {
            groupsCol.store.upsertLocal(await transport.update<GroupRecord>('bridge_groups', modal.g.id, { name }));
          }}
        />
      )}
      {modal?.kind === 'delete' && (
        <Confirm
          title="Delete group"
          message={`Delete the group "${modal.g.name}"?`}
          onCancel={() => setModal(null)}
          onConfirm={async () => {
            const g = modal.g;
            setModal(null);
            try {
              await transport.remove('bridge_groups', g.id);
              groupsCol.store.removeLocal(g);
              if (compose.groups.includes(g.id)) composeDispatch({ type: 'toggle-group', id: g.id });
            } catch (e) {
              toast('error', errorMessage(e));
            }
          }}
        />
      )}
      {modal?.kind === 'clear-history' && (
        <Confirm
          title="Clear bridge history"
          message={`Delete all ${history.length} bridge history entries?`}
          confirmLabel="Clear all"
          onCancel={() => setModal({ kind: 'history' })}
          onConfirm={async () => {
            setModal(null);
            try {
              for (const h of [...history]) {
                await transport.remove('bridge_history', h.id);
                historyStore.removeLocal(h);
              }
            } catch (e) {
              toast('error', errorMessage(e));
            }
          }}
        />
      )}
      {modal?.kind === 'history' && (
        <Modal title="Bridge history" onClose={() => setModal(null)} wide testId="bridge-history">
          {history.length === 0 ? (
            <p className="muted">No bridges yet.</p>
          ) : (
            <div className="row-end">
              <button type="button" className="button button-danger small" data-testid="history-clear" onClick={() => setModal({ kind: 'clear-history' })}>Clear all</button>
            </div>
          )}
          <ul className="history-list">
            {history.slice(0, 200).map((h) => (
              <li key={h.id} className="history-item" data-testid="history-item">
                <button type="button" className="history-load" onClick={() => loadHistory(h)} title="Right-click or Shift+F10 for more" {...menuTrigger(h, setHistoryMenu)}>
                  <span>{formatDateTime(h.created)}</span>
                  <span className="muted">{plural(h.recipientCount ?? h.contacts?.length ?? 0, 'recipient')}</span>
                  <span className="pills">{(h.groups ?? []).map((g) => <span key={g} className="pill">{g}</span>)}</span>
                </button>
                <button type="button" className="button button-ghost small" onClick={() => setModal({ kind: 'new', emails: h.contacts ?? [] })}>Save as group</button>
                <button type="button" className="icon-btn" aria-label="Delete entry" onClick={() => transport.remove('bridge_history', h.id).then(() => historyStore.removeLocal(h)).catch((e) => toast('error', errorMessage(e)))}>✕</button>
              </li>
            ))}
          </ul>
          {historyMenu && (
            <ContextMenu x={historyMenu.x} y={historyMenu.y} label="Bridge history entry" testId="history-menu" onClose={() => setHistoryMenu(null)}
              items={HISTORY_ACTIONS.map(({ action, label, danger }) => ({
                label,
                danger,
                onSelect: () => {
                  const h = historyMenu.item;
                  if (action === 'use') loadHistory(h);
                  else if (action === 'save-group') setModal({ kind: 'new', emails: h.contacts ?? [] });
                  else if (action === 'delete') setModal({ kind: 'delete-history', h });
                  else
                    copyText(historyRecipientsText(h))
                      .then(() => toast('success', `Copied ${plural(h.contacts?.length ?? 0, 'recipient')}.`))
                      .catch((e) => toast('error', errorMessage(e, 'Copy failed.')));
                },
              }))} />
          )}
        </Modal>
      )}
    </section>
  );
}
