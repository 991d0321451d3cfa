// Global due popup (every client): the pending alarms whose effective time has come (polled every
// 30 s and on realtime by attention/useDueAlarms), one at a time, oldest first (role=alertdialog);
// the tone plays only when the operator's sound is on and armed by a gesture (attention/sound),
// and the popup carries its own Sound on/off toggle (it covers the header's); the tone is the
// active MP3 (bundled or this device's custom one), the WebAudio pulses when it will not play.
// Load Alert fills the composer with the alarm's snapshot; when the composer holds a draft with
// unsent changes it first asks, in the popup (the dialog's name and focus move to the question),
// whether to replace that draft: Keep my draft goes back and leaves the alarm as it was.
import { useRef, useState } from 'react';
import { AlarmClockIcon } from '../../components/Icons';
import { errorMessage, useToast } from '../../components/Toasts';
import { useCollection } from '../../data/store';
import { dismissPatch, donePatch, effectiveDue, snoozePatch } from '../../lib/alarms';
import { formatDateTime } from '../../lib/dates';
import { useTransport } from '../../transport/context';
import { useAttention } from '../attention/AttentionContext';
import { SoundToggle } from '../attention/AttentionUi';
import { useAlarmSound } from '../attention/useAlarmSound';
import { ALARMS, type AlarmRec } from '../attention/useDueAlarms';
import { useShell } from '../shell/ShellContext';
import { hasUnsentAlertDraft } from './alertDraftStore';
import { emptyDraft, htmlToBody, requestAlertLoad, severityColor, type Severity } from './alerts';

export function DuePopup() {
  const due = useAttention().due;
  const a = due[0];
  return a ? <DueDialog key={a.id} a={a} more={due.length - 1} /> : null;
}

function DueDialog({ a, more }: { a: AlarmRec; more: number }) {
  const transport = useTransport();
  const toast = useToast();
  const shell = useShell();
  const col = useCollection<AlarmRec>(ALARMS);
  const [busy, setBusy] = useState(false);
  // Asking whether Load Alert may replace the composer's unsent draft.
  const [confirming, setConfirming] = useState(false);
  const loadButton = useRef<HTMLButtonElement>(null);
  const { playing, soundBlocked } = useAttention();
  useAlarmSound(playing, soundBlocked);

  async function act(patch: object, after?: () => void) {
    setBusy(true);
    try {
      col.store.upsertLocal(await transport.update<AlarmRec>(ALARMS, a.id, patch));
      after?.();
    } catch (e) {
      toast('error', errorMessage(e));
    } finally {
      setBusy(false);
    }
  }
  const hasSnapshot = Boolean(a.alertSubject || a.alertBodyHtml);
  const loadAlert = () => {
    setConfirming(false);
    void act(dismissPatch(new Date()), () => {
      requestAlertLoad({ ...emptyDraft, severity: (a.severity as Severity) || 'INFO', subject: a.alertSubject ?? '', ...htmlToBody(a.alertBodyHtml), sender: a.createdBy ?? '', recipient: '' });
      shell.go('alerts');
    });
  };
  const keepDraft = () => {
    setConfirming(false);
    setTimeout(() => loadButton.current?.focus(), 0);
  };
  return (
    <div className="due-backdrop">
      <div
        className="due-popup"
        onKeyDown={(e) => {
          // Focus trap: Tab cycles through the popup's buttons.
          if (e.key !== 'Tab') return;
          const els = [...e.currentTarget.querySelectorAll<HTMLButtonElement>('button:not(:disabled)')];
          if (els.length === 0) return;
          const i = els.indexOf(document.activeElement as HTMLButtonElement);
          e.preventDefault();
          els[(i + (e.shiftKey ? els.length - 1 : 1)) % els.length].focus();
        }}
        role="alertdialog" aria-modal="true" aria-labelledby={confirming ? 'due-replace-title' : 'due-title'}
        aria-describedby={confirming ? 'due-replace-text' : undefined} data-testid="due-popup" data-id={a.id}>
        {confirming ? (
          <>
            <h2 id="due-replace-title">Replace your unsent alert?</h2>
            <p id="due-replace-text" data-testid="due-replace-text">
              The Alerts composer holds a draft that has not been sent. Loading {a.alertSubject ? `"${a.alertSubject}"` : 'this alarm\'s alert'} replaces it.
            </p>
            <div className="row-wrap">
              <button type="button" className="button button-danger" data-testid="due-replace-confirm" disabled={busy} onClick={loadAlert}>Replace draft</button>
              <button type="button" className="button button-ghost" data-testid="due-replace-cancel" autoFocus onClick={keepDraft}>Keep my draft</button>
            </div>
          </>
        ) : (
          <>
            <span className="pill pill-due"><AlarmClockIcon /> Due now</span>
            <h2 id="due-title">{a.title}</h2>
            <p className="muted">Due {formatDateTime(effectiveDue(a))}{more > 0 ? ` · ${more} more waiting` : ''}</p>
            {a.note && <p className="pre">{a.note}</p>}
            {a.alertSubject && (
              <p>
                <span className="sev-dot" style={{ background: severityColor(a.severity) }} /> {a.alertSubject}
              </p>
            )}
            <div className="row-wrap">
              <button type="button" className="button button-primary" data-testid="due-snooze" disabled={busy} autoFocus onClick={() => act(snoozePatch(new Date()))}>Snooze 10m</button>
              {hasSnapshot && (
                <button type="button" className="button button-ghost" data-testid="due-load" ref={loadButton} disabled={busy}
                  onClick={() => (hasUnsentAlertDraft() ? setConfirming(true) : loadAlert())}>Load Alert</button>
              )}
              <button type="button" className="button button-ghost" data-testid="due-done" disabled={busy} onClick={() => act(donePatch(new Date()))}>Mark Done</button>
              <button type="button" className="button button-ghost" data-testid="due-dismiss" disabled={busy} onClick={() => act(dismissPatch(new Date()))}>Dismiss</button>
              <SoundToggle testId="due-sound-toggle" />
            </div>
          </>
        )}
      </div>
    </div>
  );
}
