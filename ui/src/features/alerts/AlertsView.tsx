// Alerts: severity cards, subject and rich body editor (./RichBodyEditor, with inline images from
// ./AlertBodyImages, and the Compact/Enhance transforms of ./transforms), the
// "UPDATE #N" toggle and event times in a chosen zone (./eventTimes, draft only), a live card
// preview with Save PNG and Copy for Outlook (./cardExport), history as alert threads with pinned
// templates (./AlertHistoryModal; one alert sent several ways in one draft session is one history
// row, and "Continue thread" makes the next send UPDATE #N+1 of the same thread), and
// alarms (alert_reminders): schedule, list, edit, done/dismiss, snooze. The draft is kept per
// window until sent (./alertDraftStore, which also says whether it has unsent changes: the due
// popup asks before replacing those). On a page that is not a secure context (Relay Web on
// http://) Copy for Outlook copies the card without its picture and says so beside the buttons.
import { useEffect, useMemo, useRef, useState } from 'react';
import { Modal } from '../../components/Modal';
import { errorMessage, useToast } from '../../components/Toasts';
import { useCollection } from '../../data/store';
import { defaultDue, dismissPatch, donePatch, effectiveDue, isOverdue, sortAlarms, TITLE_MAX, validateAlarm, type Alarm } from '../../lib/alarms';
import { copyRich, copyText } from '../../lib/clipboard';
import { formatDateTime, toApiDate, toLocalInput } from '../../lib/dates';
import { downloadBlob } from '../../lib/download';
import { isSecurePage } from '../../lib/secureContext';
import { clearDraft, loadDraft, useWindowDraft } from '../../lib/windowDrafts';
import { useTransport } from '../../transport/context';
import type { BaseRecord } from '../../transport/types';
import { InsertImage, type InsertImageHandle } from './AlertBodyImages';
import { AlertHistoryModal } from './AlertHistoryModal';
import { ALERT_DRAFT, draftSendKey, isEmptyAlertDraft, isUnsentDraft, provideUnsentProbe, restoreAlertDraft } from './alertDraftStore';
import { continueDraft, sendFields, threadFilter, type AlertThread } from './alertThreads';
import { useBrandLogo } from './brandLogos';
import { bodyHtmlError, bodyToHtml, htmlToBody, INPUT_MAX, newDraft, onAlertLoad, SEVERITIES, severityColor, severityText, SUBJECT_WARN, type AlertDraft, type AlertHistory } from './alerts';
import { escapeHtml, imageToken, type BodyImage } from './bodyImages';
import { cardContent, cardPlainText, copyForOutlook, imageDataUrl, pngFileName, renderCardPng } from './cardExport';
import { useCardZone } from './cardZone';
import { clampUpdate, eventTimesError, UPDATE_MAX, zoneOptions } from './eventTimes';
import { mailBodyHtml, nextImageNumber, textToRich } from './richBody';
import { RichBodyEditor, type RichBodyEditorHandle } from './RichBodyEditor';
import { RichBodyPreview } from './RichBodyPreview';
import { transformBody, type TransformFlags } from './transforms';

/** The draft's body as stored HTML; throws the operator-facing reason when it is too large. */
function draftHtml(draft: AlertDraft): string {
  const html = bodyToHtml(draft.body, draft.images);
  const err = bodyHtmlError(html, draft.body, draft.images);
  if (err) throw new Error(err);
  return html;
}

type AlarmRec = Alarm & BaseRecord;
/** Said when a send of an alert this draft session already saved writes no second history row. */
export const ALREADY_IN_HISTORY = 'already in history: sent earlier in this draft';

function AlarmForm({ draft, editing, onClose }: { draft: AlertDraft; editing?: AlarmRec; onClose: () => void }) {
  const transport = useTransport();
  const store = useCollection<AlarmRec>('alert_reminders').store;
  const [title, setTitle] = useState(editing?.title ?? (draft.subject.trim() || 'Send alert'));
  const [due, setDue] = useState(() => toLocalInput(editing ? effectiveDue(editing) ?? defaultDue(new Date()) : defaultDue(new Date())));
  const [note, setNote] = useState(editing?.note ?? '');
  const [error, setError] = useState<string | null>(null);
  async function save() {
    const when = new Date(due);
    const err = validateAlarm(title, Number.isNaN(when.getTime()) ? null : when, new Date());
    if (err) return setError(err);
    try {
      const rec = editing
        ? await transport.update<AlarmRec>('alert_reminders', editing.id, { title: title.trim(), note, dueAt: toApiDate(when), snoozeUntil: '' })
        : await transport.create<AlarmRec>('alert_reminders', {
            title: title.trim(), note, dueAt: toApiDate(when), status: 'pending', severity: draft.severity,
            alertSubject: draft.subject, alertBodyHtml: draftHtml(draft), createdBy: draft.sender,
          });
      store.upsertLocal(rec);
      onClose();
    } catch (e) {
      setError(errorMessage(e));
    }
  }
  return (
    <Modal title={editing ? 'Edit alarm' : 'Schedule alert alarm'} onClose={onClose} testId="alarm-form">
      <div className="form">
        <label className="field-label" htmlFor="al-title">Title</label>
        <input id="al-title" className="input" data-testid="alarm-title" maxLength={TITLE_MAX} value={title} onChange={(e) => setTitle(e.target.value)} />
        <label className="field-label" htmlFor="al-due">Due</label>
        <input id="al-due" className="input" type="datetime-local" data-testid="alarm-due" value={due} onChange={(e) => setDue(e.target.value)} />
        <label className="field-label" htmlFor="al-note">Note</label>
        <textarea id="al-note" className="input textarea" rows={3} value={note} onChange={(e) => setNote(e.target.value)} />
        {error && <p className="error-text" role="alert" data-testid="alarm-error">{error}</p>}
        <div className="row-end"><button type="button" className="button button-primary" data-testid="alarm-save" onClick={save}>Save alarm</button></div>
      </div>
    </Modal>
  );
}

function AlarmManager({ onEdit, onClose }: { onEdit: (a: AlarmRec) => void; onClose: () => void }) {
  const transport = useTransport();
  const toast = useToast();
  const col = useCollection<AlarmRec>('alert_reminders');
  const [showAll, setShowAll] = useState(false);
  const now = new Date();
  const list = sortAlarms(col.items.filter((a) => showAll || a.status === 'pending'));
  const act = (a: AlarmRec, patch: object) =>
    transport.update<AlarmRec>('alert_reminders', a.id, patch).then((r) => col.store.upsertLocal(r)).catch((e) => toast('error', errorMessage(e)));
  return (
    <Modal title="Alarms" onClose={onClose} wide testId="alarm-manager">
      <label className="check"><input type="checkbox" checked={showAll} onChange={(e) => setShowAll(e.target.checked)} /> Show completed alarms</label>
      {list.length === 0 && <p className="muted">No alarms.</p>}
      <ul className="history-list">
        {list.map((a) => (
          <li key={a.id} className="history-item" data-testid="alarm-row" data-id={a.id}>
            <div className="grow">
              <div>{a.title}</div>
              <div className="muted small">
                {formatDateTime(effectiveDue(a))} · {a.status}
                {isOverdue(a, now) && <span className="pill pill-bad">Overdue</span>}
                {a.snoozeUntil && a.status === 'pending' && <span className="pill">Snoozed</span>}
              </div>
            </div>
            {a.status === 'pending' && (
              <>
                <button type="button" className="button button-ghost small" onClick={() => onEdit(a)}>Edit</button>
                <button type="button" className="button button-ghost small" onClick={() => act(a, donePatch(new Date()))}>Done</button>
                <button type="button" className="button button-ghost small" onClick={() => act(a, dismissPatch(new Date()))}>Dismiss</button>
              </>
            )}
          </li>
        ))}
      </ul>
    </Modal>
  );
}

export default function AlertsView() {
  const transport = useTransport();
  const toast = useToast();
  // The draft survives a reload of this window until it is sent (./alertDraftStore).
  const [draft, setDraft] = useState<AlertDraft>(() => loadDraft(ALERT_DRAFT, restoreAlertDraft) ?? newDraft());
  useWindowDraft(ALERT_DRAFT, draft, isEmptyAlertDraft);
  const [modal, setModal] = useState<null | 'history' | 'alarms' | 'schedule' | 'pin' | { edit: AlarmRec }>(null);
  const [pinLabel, setPinLabel] = useState('');
  // "Insert image" puts its placeholder line at the editor's caret (the end when it has none).
  const editor = useRef<RichBodyEditorHandle>(null);
  // A screenshot pasted into the body goes through Insert image's own flow.
  const imageBar = useRef<InsertImageHandle>(null);
  const latest = useRef(draft);
  latest.current = draft;
  const history = useCollection<AlertHistory>('alert_history');
  const alarms = useCollection<AlarmRec>('alert_reminders').items;
  const templates = history.items.filter((h) => h.pinned && h.label);
  // Compact/Enhance (./transforms): the body as it was before the first was turned on; the shown
  // body is always transformBody(original, flags). An edit keeps what is shown and forgets it.
  const [flags, setFlags] = useState<TransformFlags>({ compact: false, enhance: false });
  const original = useRef<string | null>(null);
  const dropTransforms = () => {
    original.current = null;
    setFlags({ compact: false, enhance: false });
  };
  const toggleTransform = (key: keyof TransformFlags) => {
    const next = { ...flags, [key]: !flags[key] };
    const base = original.current ?? latest.current.body;
    if (!next.compact && !next.enhance) {
      original.current = null;
      set({ body: base });
    } else {
      original.current = base;
      set({ body: transformBody(base, next) });
    }
    setFlags(next);
  };
  // What this draft session last sent: its send key (./alertDraftStore) and history row; a load or
  // a reset starts a new session.
  const sent = useRef<{ key: string; id: string } | null>(null);
  const replaceDraft = (d: AlertDraft) => {
    dropTransforms();
    sent.current = null;
    setDraft(d);
  };
  useEffect(() => onAlertLoad(replaceDraft), []);
  // The due popup's Load Alert asks before it replaces a draft with unsent changes.
  useEffect(() => provideUnsentProbe(() => isUnsentDraft(latest.current, sent.current?.key ?? null)), []);
  const pending = useMemo(() => sortAlarms(alarms.filter((a) => a.status === 'pending')), [alarms]);
  // Said before saving is tried: inline images make the stored body large.
  const sizeError = useMemo(() => bodyHtmlError(bodyToHtml(draft.body, draft.images), draft.body, draft.images), [draft.body, draft.images]);
  const set = (p: Partial<AlertDraft>) => setDraft((d) => ({ ...d, ...p }));
  const insert = (image: BodyImage) => {
    const n = nextImageNumber(latest.current.body, latest.current.images);
    const body = editor.current?.insertLine(imageToken(n));
    if (body === undefined) return;
    dropTransforms();
    setDraft((d) => ({ ...d, body, images: { ...d.images, [n]: image } }));
  };
  const load = (h: AlertHistory) => {
    replaceDraft({ ...newDraft(), severity: h.severity ?? 'INFO', subject: h.subject ?? '', ...htmlToBody(h.bodyHtml), sender: h.sender ?? '', recipient: h.recipient ?? '' });
    setModal(null);
  };
  /** Continues a thread from its last send as the server has it now (the synced copy when offline). */
  async function continueThread(thread: AlertThread) {
    let last = thread.last;
    try {
      const page = await transport.list<AlertHistory>('alert_history', { filter: threadFilter(thread.id), sort: '-updateNumber,-created', perPage: 1 });
      if (page.items[0]) last = page.items[0];
    } catch { /* keep the synced copy */ }
    const next = continueDraft(last, newDraft());
    replaceDraft(next);
    setModal(null);
    toast('success', `Continuing the thread as UPDATE #${next.update}.`);
  }
  async function saveHistory(extra: Partial<AlertHistory> = {}): Promise<AlertHistory> {
    const rec = await transport.create<AlertHistory>('alert_history', {
      severity: draft.severity, subject: draft.subject, bodyHtml: draftHtml(draft), sender: draft.sender, recipient: draft.recipient, pinned: false, label: '',
      ...sendFields(draft), ...extra,
    });
    history.store.upsertLocal(rec);
    return rec;
  }
  /**
   * A send (copied or exported): saved to history, remembered as sent, and no longer this window's
   * draft. The same alert sent again in this draft session (Save PNG, then Copy for Outlook, then
   * Copy alert) is not saved twice while its row is still in history; answers whether a row was written.
   */
  async function recordSend(): Promise<boolean> {
    const key = draftSendKey(draft);
    const last = sent.current;
    const saved = !(last && last.key === key && history.items.some((h) => h.id === last.id));
    if (saved) {
      const rec = await saveHistory();
      sent.current = { key, id: rec.id };
      // The server numbers the send; another client may have updated the thread since it was loaded.
      if (draft.threadId && rec.updateNumber !== undefined && rec.updateNumber !== draft.update) {
        toast('error', `Saved to the thread as UPDATE #${rec.updateNumber}, not #${draft.update}: someone else updated it meanwhile.`);
      }
    }
    clearDraft(ALERT_DRAFT);
    return saved;
  }
  // The device's zone for the card's times (Settings → Alert card).
  const cardZone = useCardZone();
  async function copyAlert() {
    const card = cardContent(draft, cardZone);
    const head = `[${draft.severity}] ${card.heading}`;
    const text = cardPlainText(card);
    try {
      // With formatting or images, an HTML copy too, so they paste into mail; the plain text keeps
      // the placeholders and lists as "• item".
      if (card.bodyHtml !== textToRich(card.body)) {
        await copyRich(text, `<p><strong>${escapeHtml(head)}</strong>${card.times.map((t) => `<br>${t.label}: ${escapeHtml(t.text)}`).join('')}</p><p>${mailBodyHtml(card.bodyHtml)}</p>`);
      } else await copyText(text);
    } catch (e) {
      return toast('error', errorMessage(e));
    }
    try {
      toast('success', (await recordSend()) ? 'Alert copied and saved to history.' : `Alert copied (${ALREADY_IN_HISTORY}).`);
    } catch (e) {
      toast('error', `Alert copied, not saved to history: ${errorMessage(e)}`);
    }
  }
  // The card as drawn in the preview; Save PNG and Copy for Outlook render this element.
  const cardRef = useRef<HTMLDivElement>(null);
  const [exporting, setExporting] = useState(false);
  // Why the last Copy for Outlook has no picture (not a secure page), until dismissed or the next export.
  const [outlookNotice, setOutlookNotice] = useState<string | null>(null);
  async function exportCard(kind: 'png' | 'outlook') {
    const node = cardRef.current;
    if (!node || exporting) return;
    setExporting(true);
    setOutlookNotice(null);
    let summary: string | null = null;
    try {
      if (kind === 'png') downloadBlob(pngFileName(new Date()), await renderCardPng(node));
      else {
        const logos = { company: await imageDataUrl(companyLogo), footer: await imageDataUrl(footerLogo) };
        const copied = await copyForOutlook(cardContent(draft, cardZone), logos, () => renderCardPng(node));
        if (!copied.picture) {
          summary = copied.summary;
          setOutlookNotice(copied.notice);
        }
      }
    } catch (e) {
      setExporting(false);
      return toast('error', errorMessage(e));
    }
    setExporting(false);
    const done = kind === 'png' ? 'Alert card downloaded as PNG' : (summary ?? 'Alert card copied for Outlook');
    try {
      toast('success', (await recordSend()) ? `${done} and saved to history.` : `${done} (${ALREADY_IN_HISTORY}).`);
    } catch (e) {
      toast('error', `${done}, not saved to history: ${errorMessage(e)}`);
    }
  }
  const card = cardContent(draft, cardZone);
  const timesError = eventTimesError(draft);
  const zones = useMemo(() => zoneOptions(cardZone), [cardZone]);
  const color = severityColor(draft.severity);
  const companyLogo = useBrandLogo('company');
  const footerLogo = useBrandLogo('footer');

  return (
    <section className="view view-wide">
      <header className="view-header">
        <h1 className="view-title">Alerts</h1>
        <div className="row-wrap push-right">
          <button type="button" className="button button-ghost" onClick={() => replaceDraft(newDraft())}>Reset</button>
          <button type="button" className="button button-ghost" data-testid="alert-history-open" onClick={() => setModal('history')}>History</button>
          <button type="button" className="button button-ghost" data-testid="alarms-open" onClick={() => setModal('alarms')}>Alarms ({pending.length})</button>
          <button type="button" className="button button-ghost" data-testid="alarm-schedule" onClick={() => setModal('schedule')}>Schedule alert alarm</button>
          <button type="button" className="button button-ghost" data-testid="alert-pin" onClick={() => { setPinLabel(draft.subject.trim() || 'Untitled Template'); setModal('pin'); }}>Pin template</button>
          <button type="button" className="button button-ghost" data-testid="alert-save-png" disabled={exporting} onClick={() => exportCard('png')}>Save PNG</button>
          <button type="button" className="button button-ghost" data-testid="alert-copy-outlook" disabled={exporting} onClick={() => exportCard('outlook')}
            title={isSecurePage() ? undefined : 'On this http:// page the card is copied as formatted text, without the picture: use Save PNG for the picture.'}>Copy for Outlook</button>
          <button type="button" className="button button-primary" data-testid="alert-copy" onClick={copyAlert}>Copy alert</button>
        </div>
      </header>
      {outlookNotice && (
        <div className="alarm-strip warn-text row-wrap" role="status" data-testid="alert-copy-outlook-notice">
          <span>{outlookNotice}</span>
          <button type="button" className="icon-btn push-right" aria-label="Dismiss" data-testid="alert-copy-outlook-notice-dismiss" onClick={() => setOutlookNotice(null)}>✕</button>
        </div>
      )}
      <div className="alarm-strip" data-testid="next-alarm">
        {pending[0] ? (
          <>Next alarm: <strong>{pending[0].title}</strong> at {formatDateTime(effectiveDue(pending[0]))}{pending.length > 1 ? ` · +${pending.length - 1} more` : ''}</>
        ) : (
          <span className="muted">No pending alarms.</span>
        )}
      </div>
      {templates.length > 0 && (
        <div className="chips" aria-label="Pinned templates">
          {templates.map((t) => <button key={t.id} type="button" className="chip" data-testid="template-chip" onClick={() => load(t)}>★ {t.label}</button>)}
        </div>
      )}
      <div className="alerts-grid">
        <div className="panel form">
          <h2>1 · Severity</h2>
          <div className="sev-cards" role="radiogroup" aria-label="Severity">
            {SEVERITIES.map((s) => (
              <button key={s.id} type="button" role="radio" aria-checked={draft.severity === s.id} data-testid={`sev-${s.id}`}
                className={draft.severity === s.id ? 'sev-card sev-on' : 'sev-card'} style={{ borderColor: s.color, ...(draft.severity === s.id ? { background: s.color, color: s.text } : {}) }}
                onClick={() => set({ severity: s.id })}>
                {s.id}
              </button>
            ))}
          </div>
          <h2>2 · Message</h2>
          <label className="field-label" htmlFor="alert-subject">Subject <span className={draft.subject.length > SUBJECT_WARN ? 'warn-text' : 'muted'}>{draft.subject.length}/{SUBJECT_WARN}</span></label>
          <input id="alert-subject" className="input" data-testid="alert-subject" maxLength={INPUT_MAX} value={draft.subject} onChange={(e) => set({ subject: e.target.value })} />
          <div className="field-label" id="alert-body-label" onClick={() => document.getElementById('alert-body')?.focus()}>Body</div>
          <RichBodyEditor ref={editor} id="alert-body" labelId="alert-body-label" testId="alert-body" maxLength={INPUT_MAX} value={draft.body}
            onImage={(file) => imageBar.current?.insertFile(file)}
            onChange={(body) => {
              if (original.current !== null) dropTransforms();
              set({ body });
            }} />
          <div className="row-wrap" role="group" aria-label="Transforms">
            <label className="check"><input type="checkbox" data-testid="alert-compact" checked={flags.compact} onChange={() => toggleTransform('compact')} /> Compact</label>
            <label className="check"><input type="checkbox" data-testid="alert-enhance" checked={flags.enhance} onChange={() => toggleTransform('enhance')} /> Enhance</label>
            <span className="muted small">{flags.compact || flags.enhance ? 'Turn both off to get the original back; editing keeps this text.' : 'Compact strips filler phrases; Enhance highlights times, dates, outages and numbers.'}</span>
          </div>
          <InsertImage ref={imageBar} onInsert={insert} />
          {sizeError && <p className="error-text" data-testid="alert-body-size">{sizeError}</p>}
          <h2>3 · Delivery</h2>
          <div className="row-wrap">
            <input className="input grow" aria-label="Sender" placeholder="Sender (IT)" value={draft.sender} onChange={(e) => set({ sender: e.target.value })} />
            <input className="input grow" aria-label="Recipient" placeholder="Recipient (All Employees)" value={draft.recipient} onChange={(e) => set({ recipient: e.target.value })} />
          </div>
          <div className="row-wrap">
            <label className="check"><input type="checkbox" data-testid="alert-update-toggle" checked={draft.update >= 1} onChange={(e) => set({ update: e.target.checked ? 1 : 0 })} /> Update of an earlier alert</label>
            {draft.update >= 1 && (
              <label className="check" htmlFor="alert-update-n">Update number
                <input id="alert-update-n" className="input input-narrow" type="number" min={1} max={UPDATE_MAX} step={1} data-testid="alert-update-n"
                  value={draft.update} onChange={(e) => set({ update: clampUpdate(e.target.valueAsNumber) })} />
              </label>
            )}
          </div>
          {draft.threadId && (
            <p className="muted small row-wrap" data-testid="alert-thread-note">
              <span>Continues an alert thread: the server numbers this send after the thread's last one.</span>
              <button type="button" className="button button-ghost small" data-testid="alert-thread-leave" onClick={() => set({ threadId: '' })}>Send as a new alert</button>
            </p>
          )}
          <div className="alert-times">
            <div>
              <label className="field-label" htmlFor="alert-start">Event start</label>
              <input id="alert-start" className="input" type="datetime-local" data-testid="alert-start" value={draft.start} onChange={(e) => set({ start: e.target.value })} />
            </div>
            <div>
              <label className="field-label" htmlFor="alert-end">Event end</label>
              <input id="alert-end" className="input" type="datetime-local" data-testid="alert-end" value={draft.end} onChange={(e) => set({ end: e.target.value })} />
            </div>
            <div className="alert-times-zone">
              <label className="field-label" htmlFor="alert-tz">Time zone</label>
              <select id="alert-tz" className="input" data-testid="alert-tz" value={draft.timeZone} onChange={(e) => set({ timeZone: e.target.value })}>
                {(zones.includes(draft.timeZone) ? zones : [draft.timeZone, ...zones]).map((z) => <option key={z} value={z}>{z.replace(/_/g, ' ')}</option>)}
              </select>
            </div>
          </div>
          {timesError && <p className="error-text" data-testid="alert-times-error">{timesError}</p>}
          <p className="muted small" data-testid="alert-card-zone-note">The card shows these times in {cardZone.replace(/_/g, ' ')} (Settings → Alert card, this device).</p>
        </div>
        {/* The preview pane stays in view (sticky) while the form scrolls, e.g. through step 3. */}
        <div className="alert-preview-pane" data-testid="alert-preview-pane">
          <div className="alert-preview" data-testid="alert-preview" aria-label="Preview" ref={cardRef}>
            <div className="alert-card-head" style={{ background: color, color: severityText(draft.severity) }}>
              {companyLogo && <img className="alert-card-logo" src={companyLogo} alt="Company logo" data-testid="alert-card-company-logo" />}
              <span className="alert-sev">{draft.severity}</span>
              <h3 data-testid="alert-preview-heading">{card.heading || 'Subject'}</h3>
            </div>
            {card.times.length > 0 && (
              <div className="alert-card-times" data-testid="alert-preview-times">
                {card.times.map((t) => <div key={t.label}><strong>{t.label}:</strong> {t.text}</div>)}
              </div>
            )}
            <div className="alert-card-body pre" data-testid="alert-preview-body">{draft.body ? <RichBodyPreview body={draft.body} images={draft.images} /> : 'Message body…'}</div>
            <div className="alert-card-foot muted small">
              From {draft.sender || 'IT'} · To {draft.recipient || 'All Employees'}
              {footerLogo && <img className="alert-card-footer-logo" src={footerLogo} alt="Footer logo" data-testid="alert-card-footer-logo" />}
            </div>
          </div>
        </div>
      </div>
      {modal === 'history' && <AlertHistoryModal onLoad={load} onContinue={continueThread} onClose={() => setModal(null)} />}
      {modal === 'alarms' && <AlarmManager onEdit={(a) => setModal({ edit: a })} onClose={() => setModal(null)} />}
      {modal === 'schedule' && <AlarmForm draft={draft} onClose={() => setModal(null)} />}
      {modal && typeof modal === 'object' && <AlarmForm draft={draft} editing={modal.edit} onClose={() => setModal(null)} />}
      {modal === 'pin' && (
        <Modal title="Pin template" onClose={() => setModal(null)} testId="pin-dialog">
          <div className="form">
            <input className="input" aria-label="Template name" data-testid="pin-label" value={pinLabel} onChange={(e) => setPinLabel(e.target.value)} />
            <div className="row-end">
              <button type="button" className="button button-primary" data-testid="pin-save" onClick={() => saveHistory({ pinned: true, label: pinLabel.trim() || 'Untitled Template', threadId: '' }).then(() => { setModal(null); toast('success', 'Template pinned.'); }).catch((e) => toast('error', errorMessage(e)))}>Pin</button>
            </div>
          </div>
        </Modal>
      )}
    </section>
  );
}
