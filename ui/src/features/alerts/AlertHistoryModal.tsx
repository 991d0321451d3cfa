// Alert history: pinned templates, then the recent sends as threads (./alertThreads), one line per
// alert with its subject, severity, last update time and number of sends (a click loads the last
// send as a new alert, as a history row always did); "Sends" expands a thread to its sends in
// order (Original, UPDATE #1, …) with their times and sender. "Continue thread" hands the
// thread to the composer, which loads its last send as the server has it and sets UPDATE #N+1.
// Search matches any send of a thread; Pin, Load and Delete act on one send; Clear all deletes all.
import { useState } from 'react';
import { Confirm, Modal } from '../../components/Modal';
import { errorMessage, useToast } from '../../components/Toasts';
import { useCollection } from '../../data/store';
import { formatDateTime } from '../../lib/dates';
import { plural } from '../../lib/text';
import { useTransport } from '../../transport/context';
import { bodyText, htmlToBody, severityColor, type AlertHistory } from './alerts';
import { groupThreads, sendLabel, type AlertThread } from './alertThreads';

/** Most threads the Recent list shows. */
export const THREADS_SHOWN = 100;

interface Props {
  onLoad: (h: AlertHistory) => void;
  onContinue: (thread: AlertThread) => void;
  onClose: () => void;
}

export function AlertHistoryModal({ onLoad, onContinue, onClose }: Props) {
  const transport = useTransport();
  const toast = useToast();
  const col = useCollection<AlertHistory>('alert_history');
  const [q, setQ] = useState('');
  const [clearing, setClearing] = useState(false);
  const [open, setOpen] = useState<string | null>(null);
  const needle = q.trim().toLowerCase();
  const match = (h: AlertHistory) => !needle || [h.label, h.subject, bodyText(htmlToBody(h.bodyHtml).body), h.severity, h.sender, h.recipient].some((f) => f?.toLowerCase().includes(needle));
  const isTemplate = (h: AlertHistory) => Boolean(h.pinned && h.label);
  const pinned = col.items.filter((h) => isTemplate(h) && match(h));
  const threads = groupThreads(col.items.filter((h) => !isTemplate(h))).filter((t) => t.sends.some(match));
  const togglePin = (h: AlertHistory) =>
    transport.update<AlertHistory>('alert_history', h.id, { pinned: !h.pinned, label: h.label || h.subject || 'Untitled Template' }).then((r) => col.store.upsertLocal(r)).catch((e) => toast('error', errorMessage(e)));
  const remove = (h: AlertHistory) => transport.remove('alert_history', h.id).then(() => col.store.removeLocal(h)).catch((e) => toast('error', errorMessage(e)));
  const actions = (h: AlertHistory) => (
    <>
      <button type="button" className="button button-ghost small" onClick={() => togglePin(h)}>{h.pinned ? 'Unpin' : 'Pin'}</button>
      <button type="button" className="icon-btn" aria-label="Delete" onClick={() => remove(h)}>✕</button>
    </>
  );
  const templateRow = (h: AlertHistory) => (
    <li key={h.id} className="history-item" data-testid="alert-history-item">
      <button type="button" className="history-load" onClick={() => onLoad(h)}>
        <span className="sev-dot" style={{ background: severityColor(h.severity) }} />
        <span><strong>{h.label}</strong></span>
        <span className="muted small">{formatDateTime(h.created)}</span>
      </button>
      {actions(h)}
    </li>
  );
  const sendRow = (h: AlertHistory) => (
    <li key={h.id} className="history-item" data-testid="alert-thread-send">
      <button type="button" className="history-load" onClick={() => onLoad(h)} title="Load this send as a new alert">
        <strong data-testid="alert-thread-send-label">{sendLabel(h)}</strong>
        <span>{h.subject || '(no subject)'}</span>
        <span className="muted small">{formatDateTime(h.created)} · From {h.sender || 'IT'}</span>
      </button>
      {actions(h)}
    </li>
  );
  const threadRow = (t: AlertThread) => {
    const expanded = open === t.id;
    return (
      <li key={t.id} className="history-thread" data-testid="alert-history-item" data-thread={t.id}>
        <div className="history-item">
          <button type="button" className="history-load" onClick={() => onLoad(t.last)} title="Load the last send as a new alert">
            <span className="sev-dot" style={{ background: severityColor(t.last.severity) }} />
            <span>{t.last.subject || '(no subject)'}</span>
            <span className="muted small" data-testid="alert-thread-summary">
              {t.last.severity ?? 'INFO'} · {plural(t.sends.length, 'send', 'sends')} · last {formatDateTime(t.last.created)}
            </span>
          </button>
          <button type="button" className="button button-ghost small" aria-expanded={expanded} data-testid="alert-thread-toggle" onClick={() => setOpen(expanded ? null : t.id)}>
            {expanded ? 'Hide sends' : 'Sends'}
          </button>
          <button type="button" className="button button-ghost small" data-testid="alert-thread-continue" onClick={() => onContinue(t)}>Continue thread</button>
        </div>
        {expanded && <ol className="history-list history-thread-sends" aria-label="Sends">{t.sends.map(sendRow)}</ol>}
      </li>
    );
  };
  return (
    <Modal title="Alert history" onClose={onClose} wide testId="alert-history">
      <input className="input" placeholder="Search history…" aria-label="Search history" value={q} onChange={(e) => setQ(e.target.value)} />
      <div className="row-wrap">
        <p className="muted small">{plural(threads.length, 'alert', 'alerts')} · {plural(col.items.length, 'send', 'sends')}</p>
        {col.items.length > 0 && <button type="button" className="button button-danger small push-right" onClick={() => setClearing(true)}>Clear all</button>}
      </div>
      {clearing && (
        <Confirm title="Clear alert history" message={`Delete all ${plural(col.items.length, 'entry', 'entries')}, pinned templates included?`} confirmLabel="Clear all"
          onCancel={() => setClearing(false)}
          onConfirm={async () => {
            setClearing(false);
            try {
              for (const h of [...col.items]) { await transport.remove('alert_history', h.id); col.store.removeLocal(h); }
            } catch (e) { toast('error', errorMessage(e)); }
          }} />
      )}
      <h3 className="subhead">Pinned Templates</h3>
      <ul className="history-list">{pinned.length ? pinned.map(templateRow) : <li className="muted">None</li>}</ul>
      <h3 className="subhead">Recent</h3>
      <ul className="history-list" data-testid="alert-threads">{threads.slice(0, THREADS_SHOWN).map(threadRow)}</ul>
    </Modal>
  );
}
