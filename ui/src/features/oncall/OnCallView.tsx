// On-Call board: team cards from `oncall` rows grouped by teamId, ordered by the "primary"
// oncall_board_settings row (teamOrder, locked); drag or keyboard reorder writes teamOrder;
// lock toggle; add card; edit rows; ACTIVE NOW from the time-window parser; Export (CSV, see
// lib/board and lib/csv); a card menu (right-click, Shift+F10 or the ContextMenu key: copy, edit,
// rename, remove); a phone number copies itself; Kiosk (wallboard: large type, no editing
// controls, Esc or Exit kiosk leaves). `readOnly` is the ?popout=board view. Edit team: ./EditTeam.
// "Board as of" (./BoardHistory) shows the board at a past moment from the server's on-call
// history, read-only and labelled as a past view; Export history writes a range of changes.
import { useEffect, useMemo, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import { ContextMenu } from '../../components/ContextMenu';
import { openPopout } from '../../lib/sessionHandoff';
import { Confirm, Modal } from '../../components/Modal';
import { errorMessage, useToast } from '../../components/Toasts';
import { useCollection } from '../../data/store';
import {
  boardCsvFileName,
  boardCsvRecords,
  moveItem,
  orderedCards,
  reconcileOrder,
  renameInOrder,
  teamIdOf,
  validateRename,
  validateTeamName,
  weekRange,
  type OnCallRow,
  type TeamCard,
} from '../../lib/board';
import { toCsv } from '../../lib/csv';
import { downloadText } from '../../lib/download';
import { formatDateTime, localDateKey } from '../../lib/dates';
import { activeChips } from '../../lib/reminderChips';
import { copyText } from '../../lib/clipboard';
import { formatPhone } from '../../lib/phone';
import { isActiveNow } from '../../lib/timeWindow';
import { LIMITS, fieldError } from '../../lib/limits';
import { plural } from '../../lib/text';
import { useConnectionState, useTransport } from '../../transport/context';
import { OFFLINE_NO_CACHE, dataView } from '../shell/connectionLabel';
import type { BaseRecord } from '../../transport/types';
import { BoardHistoryBar, PastViewBanner, usePastBoard } from './BoardHistory';
import { EditTeam } from './EditTeam';

type Row = OnCallRow & BaseRecord;
interface Dismissal extends BaseRecord {
  alertType: string;
  dateKey: string;
}
interface BoardSettings extends BaseRecord {
  key: string;
  teamOrder?: string[] | null;
  locked?: boolean;
}

function hue(name: string): number {
  let h = 0;
  for (const ch of name) h = (h * 31 + ch.charCodeAt(0)) % 360;
  return h;
}

function health(card: TeamCard, now: Date): string {
  const rows = card.rows.filter((r) => r.name?.trim());
  if (rows.length === 0) return 'Empty';
  if (rows.some((r) => !r.contact?.trim())) return 'Needs contact';
  const active = rows.filter((r) => isActiveNow(r.timeWindow, now)).length;
  if (active > 0) return `${active} active`;
  if (rows.length < 2) return 'No backup';
  return 'Covered';
}

/** Length check of a new team's name (its lowercased id has the same limit); null when fine. */
function teamNameError(name: string): string | null {
  return fieldError(LIMITS.oncall.team, name, { required: false });
}

export function cardText(c: TeamCard): string {
  const parts = c.rows.filter((r) => r.name?.trim()).map((r) => `${r.role ?? ''} ${r.name ?? ''}${r.contact ? ` (${formatPhone(r.contact)})` : ''}${r.timeWindow ? ` [${r.timeWindow}]` : ''}`.trim());
  return `${c.team}: ${parts.length ? parts.join(' | ') : '(empty)'}`;
}

function RenameTeam({ card, ids, onSave, onClose }: { card: TeamCard; ids: string[]; onSave: (name: string) => Promise<void>; onClose: () => void }) {
  const [name, setName] = useState(card.team);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <Modal title={`Rename ${card.team}`} onClose={onClose} testId="rename-team">
      <form className="form" onSubmit={async (e) => {
        e.preventDefault();
        const err = validateRename(name, card.teamId, ids) ?? teamNameError(name);
        if (err) return setError(err);
        setBusy(true);
        try {
          await onSave(name.trim());
          onClose();
        } catch (x) {
          setError(errorMessage(x));
          setBusy(false);
        }
      }}>
        <label className="field-label" htmlFor="rename-team-name">Team name</label>
        <input id="rename-team-name" className="input" data-testid="rename-team-name" value={name} onChange={(e) => { setName(e.target.value); setError(null); }} />
        {error && <p className="error-text" role="alert" data-testid="rename-team-error">{error}</p>}
        <div className="row-end"><button type="submit" className="button button-primary" data-testid="rename-team-save" disabled={busy}>Rename</button></div>
      </form>
    </Modal>
  );
}

export default function OnCallView({ readOnly = false }: { readOnly?: boolean }) {
  const transport = useTransport();
  const toast = useToast();
  const rowsCol = useCollection<Row>('oncall');
  const settingsCol = useCollection<BoardSettings>('oncall_board_settings');
  const dismissCol = useCollection<Dismissal>('oncall_dismissals');
  const [now, setNow] = useState(() => new Date());
  const [modal, setModal] = useState<null | 'add' | { edit: TeamCard } | { remove: TeamCard } | { rename: TeamCard }>(null);
  const [menu, setMenu] = useState<{ x: number; y: number; card: TeamCard; from: HTMLElement } | null>(null);
  const [kiosk, setKiosk] = useState(false);
  const [asOf, setAsOf] = useState<Date | null>(null);
  const kioskButton = useRef<HTMLButtonElement>(null);
  const wasKiosk = useRef(false);
  const [newTeam, setNewTeam] = useState('');
  const [addError, setAddError] = useState<string | null>(null);
  const [dragId, setDragId] = useState<string | null>(null);
  const [localOrder, setLocalOrder] = useState<string[] | null>(null);
  const creating = useRef(false);

  useEffect(() => {
    const id = setInterval(() => setNow(new Date()), 60_000);
    return () => clearInterval(id);
  }, []);

  const primaries = settingsCol.items.filter((s) => s.key === 'primary');
  const settings = primaries[0] ?? null; // newest first
  // Ensure the singleton exists (refetch if another client won the race on the unique key).
  useEffect(() => {
    if (readOnly || settingsCol.status !== 'ready' || settings || creating.current) return;
    creating.current = true;
    transport
      .create<BoardSettings>('oncall_board_settings', { key: 'primary', teamOrder: [], locked: false })
      .then((r) => settingsCol.store.upsertLocal(r))
      .catch(() => settingsCol.store.load())
      .finally(() => (creating.current = false));
  }, [readOnly, settingsCol.status, settingsCol.store, settings, transport]);

  useEffect(() => {
    if (!kiosk && wasKiosk.current) kioskButton.current?.focus(); // focus back where kiosk was entered
    wasKiosk.current = kiosk;
    if (!kiosk) return;
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key === 'Escape' && !e.defaultPrevented && !document.querySelector('[role="dialog"], [role="alertdialog"], [role="menu"]')) setKiosk(false);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [kiosk]);

  const order = localOrder ?? settings?.teamOrder ?? [];
  const past = usePastBoard(asOf, rowsCol.items);
  const shownRows = asOf ? past.rows ?? [] : rowsCol.items;
  const boardTime = asOf ?? now;
  const cards = useMemo(() => orderedCards(shownRows, order), [shownRows, order]);
  const connection = useConnectionState();
  // Offline before the first load (nothing cached) is "unavailable", never "Loading…" forever.
  const view = dataView([rowsCol.status, settingsCol.status], connection);
  const loading = view !== 'ready' || !settings || (asOf !== null && !past.rows && !past.error);
  // Kiosk shows the board like the read-only popout: nothing on it edits.
  const viewOnly = readOnly || kiosk || asOf !== null;
  const locked = viewOnly || loading || Boolean(settings?.locked);
  useEffect(() => setLocalOrder(null), [settings?.teamOrder]);

  async function writeOrder(next: string[]) {
    if (!settings) return;
    setLocalOrder(next);
    try {
      settingsCol.store.upsertLocal(await transport.update<BoardSettings>('oncall_board_settings', settings.id, { teamOrder: next }));
    } catch (e) {
      setLocalOrder(null);
      toast('error', errorMessage(e));
    }
  }
  const ids = cards.map((c) => c.teamId);
  const move = (from: number, to: number) => void writeOrder(moveItem(ids, from, to));

  async function addCard() {
    const err = validateTeamName(newTeam, ids) ?? teamNameError(newTeam);
    if (err) return setAddError(err);
    const team = newTeam.trim();
    try {
      const r = await transport.create<Row>('oncall', { team, teamId: teamIdOf(team), role: 'Primary', name: '', contact: '', timeWindow: '', sortOrder: 0 });
      rowsCol.store.upsertLocal(r);
      await writeOrder(reconcileOrder([...ids, teamIdOf(team)], [...ids, teamIdOf(team)]));
      setModal(null);
      setNewTeam('');
    } catch (e) {
      setAddError(errorMessage(e));
    }
  }

  function exportCsv() {
    if (cards.length === 0) return toast('warning', 'The board has no teams to export.');
    const records = boardCsvRecords(cards, formatPhone);
    downloadText(boardCsvFileName(new Date()), toCsv(records), 'text/csv;charset=utf-8');
    toast('success', `Exported ${plural(records.length, 'row')}.`);
  }

  function openMenu(e: MouseEvent<HTMLElement> | KeyboardEvent<HTMLElement>, card: TeamCard) {
    e.preventDefault();
    const el = e.currentTarget;
    if ('clientX' in e) setMenu({ x: e.clientX, y: e.clientY, card, from: el });
    else {
      const r = el.getBoundingClientRect();
      setMenu({ x: r.left + 24, y: r.top + 40, card, from: el });
    }
  }

  function closeMenu() {
    const from = menu?.from;
    setMenu(null);
    // Back to the card when the menu closed without moving focus elsewhere (Esc, outside click).
    setTimeout(() => { if (from?.isConnected && (document.activeElement === document.body || !document.activeElement)) from.focus(); }, 0);
  }

  const copyCard = (c: TeamCard) => copyText(cardText(c)).then(() => toast('success', 'Copied.'), () => toast('error', 'Could not copy.'));

  return (
    <section className={`view view-wide${readOnly ? ' popout' : ''}${kiosk ? ' kiosk' : ''}`} data-testid="oncall-view" aria-label={kiosk ? 'On-call wallboard' : undefined}>
      <header className="view-header">
        <div className="view-heading">
          <div className="view-heading-line">
            <h1 className="view-title">On-Call Board</h1>
            <span className="muted" data-testid="board-state">{view === 'unavailable' ? OFFLINE_NO_CACHE : loading ? 'Loading…' : plural(cards.length, 'team')}</span>
          </div>
          <span className="muted small" data-testid="board-week">
            Week of {weekRange(now).start.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })} –{' '}
            {weekRange(now).end.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })}
            {rowsCol.items.length > 0 && ` · Last updated ${formatDateTime(rowsCol.items.reduce((m, r) => (r.updated > m ? r.updated : m), ''))}`}
          </span>
        </div>
        <div className="row-wrap push-right" data-testid="board-actions">
          {kiosk ? (
            <button type="button" className="button button-primary" data-testid="kiosk-exit" autoFocus onClick={() => setKiosk(false)}>Exit kiosk</button>
          ) : (
            <>
              <button type="button" className="button button-ghost" onClick={() => copyText(cards.map(cardText).join('\n')).then(() => toast('success', 'Board copied.'), (e) => toast('error', errorMessage(e, 'Could not copy.')))}>Copy all</button>
              <button type="button" className="button button-ghost" data-testid="board-export" disabled={loading} onClick={exportCsv}>Export CSV</button>
              <button type="button" className="button button-ghost" data-testid="board-kiosk" ref={kioskButton} title="Wallboard view for a large screen (Esc exits)" onClick={() => setKiosk(true)}>Kiosk</button>
            </>
          )}
          {!viewOnly && (
            <>
              <button type="button" className="button button-ghost" data-testid="board-popout" onClick={() => openPopout('/?popout=board', 'relay-board', 'width=960,height=800')}>Pop out</button>
              <button type="button" className="button button-ghost" data-testid="board-lock" aria-pressed={locked} disabled={loading}
                onClick={() => settings && transport.update<BoardSettings>('oncall_board_settings', settings.id, { locked: !settings.locked }).then((r) => settingsCol.store.upsertLocal(r)).catch((e) => toast('error', errorMessage(e)))}>
                {locked ? 'Locked' : 'Unlocked'}
              </button>
              <button type="button" className="button button-primary" data-testid="board-add" onClick={() => { setAddError(null); setModal('add'); }}>Add card</button>
            </>
          )}
        </div>
      </header>
      {!kiosk && <BoardHistoryBar asOf={asOf} onAsOf={setAsOf} />}
      {asOf && <PastViewBanner asOf={asOf} error={past.error} onNow={() => setAsOf(null)} />}
      {(() => {
        // Until today's dismissals are known, a chip may already be dismissed: show none.
        if (dismissCol.status !== 'ready') return null;
        const key = localDateKey(now);
        const chips = activeChips(now, dismissCol.items, key);
        if (chips.length === 0) return null;
        return (
          <div className="chips" aria-label="Reminders">
            {chips.map((c) => (
              <button key={c.alertType} type="button" className={c.urgent ? 'chip chip-urgent' : 'chip chip-reminder'} data-testid="reminder-chip" disabled={viewOnly}
                title={viewOnly ? undefined : 'Dismiss for today'}
                onClick={() => transport.create<Dismissal>('oncall_dismissals', { alertType: c.alertType, dateKey: key }).then((r) => dismissCol.store.upsertLocal(r)).catch((e) => toast('error', errorMessage(e)))}>
                {c.label}{viewOnly ? '' : ' ✕'}
              </button>
            ))}
          </div>
        );
      })()}
      {view === 'unavailable' && cards.length === 0 && (
        <p className="panel muted" role="status" data-testid="board-unavailable">
          {OFFLINE_NO_CACHE}: the board has not been loaded on this device yet. It appears when the connection is back.
        </p>
      )}
      {cards.length === 0 && !loading && <p className="muted">No on-call teams yet.</p>}
      <div className="board" data-testid="board">
        {cards.map((c, i) => (
          <article
            key={c.teamId}
            className={`team-card${dragId === c.teamId ? ' dragging' : ''}`}
            data-testid="team-card"
            data-team={c.teamId}
            tabIndex={0}
            aria-label={`${c.team} on-call card`}
            aria-haspopup="menu"
            onContextMenu={(e) => openMenu(e, c)}
            onKeyDown={(e) => { if (e.target === e.currentTarget && (e.key === 'ContextMenu' || (e.shiftKey && e.key === 'F10'))) openMenu(e, c); }}
            style={{ borderTopColor: `hsl(${hue(c.team)} 65% 55%)` }}
            draggable={!locked}
            onDragStart={(e) => { setDragId(c.teamId); e.dataTransfer.setData('text/plain', c.teamId); e.dataTransfer.effectAllowed = 'move'; }}
            onDragEnd={() => setDragId(null)}
            onDragOver={(e) => { if (!locked) e.preventDefault(); }}
            onDrop={(e) => {
              e.preventDefault();
              const from = ids.indexOf(e.dataTransfer.getData('text/plain'));
              if (!locked && from >= 0 && from !== i) move(from, i);
              setDragId(null);
            }}
          >
            <header className="team-head">
              <h2 className="team-name">{c.team}</h2>
              <span className="pill" data-testid="team-health">{health(c, boardTime)}</span>
            </header>
            <ul className="team-rows">
              {c.rows.map((r) => (
                <li key={r.id} className="team-row">
                  <div className="grow">
                    <div>
                      <strong>{r.name || '—'}</strong> <span className="muted small">{r.role}</span>
                      {isActiveNow(r.timeWindow, boardTime) && <span className="pill pill-active" data-testid="active-now">ACTIVE NOW</span>}
                    </div>
                    <div className="muted small">
                      {r.contact && (
                        <button type="button" className="phone-copy" data-testid="phone-copy" aria-label={`Copy ${r.name || c.team} phone number ${formatPhone(r.contact)}`}
                          onClick={() => copyText(formatPhone(r.contact)).then(() => toast('success', `Copied ${formatPhone(r.contact)}.`), () => toast('error', 'Could not copy the number.'))}>
                          {formatPhone(r.contact)}
                        </button>
                      )}
                      {r.contact && r.timeWindow && ' · '}
                      {r.timeWindow}
                    </div>
                  </div>
                </li>
              ))}
            </ul>
            <footer className="team-foot">
              <button type="button" className="icon-btn" aria-label={`Copy ${c.team}`} onClick={() => copyCard(c)}>Copy</button>
              {!viewOnly && (
                <>
                  <button type="button" className="icon-btn" aria-label={`Move ${c.team} earlier`} data-testid="card-move-up" disabled={locked || i === 0} onClick={() => move(i, i - 1)}>←</button>
                  <button type="button" className="icon-btn" aria-label={`Move ${c.team} later`} data-testid="card-move-down" disabled={locked || i === cards.length - 1} onClick={() => move(i, i + 1)}>→</button>
                  <button type="button" className="button button-ghost small" data-testid="card-edit" onClick={() => setModal({ edit: c })}>Edit</button>
                  <button type="button" className="button button-ghost small" onClick={() => setModal({ remove: c })}>Remove</button>
                </>
              )}
            </footer>
          </article>
        ))}
      </div>
      {modal === 'add' && (
        <Modal title="Add card" onClose={() => setModal(null)} testId="add-card">
          <form className="form" onSubmit={(e) => { e.preventDefault(); void addCard(); }}>
            <input className="input" aria-label="Team name" data-testid="add-card-name" placeholder="Team name" value={newTeam} onChange={(e) => { setNewTeam(e.target.value); setAddError(null); }} />
            {(addError ?? teamNameError(newTeam)) && <p className="error-text" role="alert" data-testid="add-card-error">{addError ?? teamNameError(newTeam)}</p>}
            <div className="row-end"><button type="submit" className="button button-primary" data-testid="add-card-save">Add</button></div>
          </form>
        </Modal>
      )}
      {menu && (
        <ContextMenu x={menu.x} y={menu.y} onClose={closeMenu} items={[
          { label: 'Copy On-Call Info', onSelect: () => copyCard(menu.card) },
          ...(viewOnly ? [] : [
            { label: 'Edit Team', onSelect: () => setModal({ edit: menu.card }) },
            { label: 'Rename Team', onSelect: () => setModal({ rename: menu.card }) },
            { label: 'Remove Team', danger: true, onSelect: () => setModal({ remove: menu.card }) },
          ]),
        ]} />
      )}
      {modal && typeof modal === 'object' && 'rename' in modal && (
        <RenameTeam card={modal.rename} ids={ids} onClose={() => setModal(null)}
          onSave={async (name) => {
            const c = modal.rename;
            const to = teamIdOf(name);
            for (const r of c.rows) rowsCol.store.upsertLocal(await transport.update<Row>('oncall', r.id, { team: name, teamId: to }));
            if (to !== c.teamId) await writeOrder(renameInOrder(ids, c.teamId, to));
            toast('success', `Renamed ${c.team} to ${name}.`);
          }} />
      )}
      {modal && typeof modal === 'object' && 'edit' in modal && <EditTeam card={modal.edit} onClose={() => setModal(null)} />}
      {modal && typeof modal === 'object' && 'remove' in modal && (
        <Confirm title="Remove team" message={`Remove ${modal.remove.team} and all its rows?`} confirmLabel="Remove" onCancel={() => setModal(null)}
          onConfirm={async () => {
            const c = modal.remove;
            setModal(null);
            try {
              for (const r of c.rows) { await transport.remove('oncall', r.id); rowsCol.store.removeLocal(r as Row); }
              await writeOrder(ids.filter((x) => x !== c.teamId));
            } catch (e) { toast('error', errorMessage(e)); }
          }} />
      )}
    </section>
  );
}
