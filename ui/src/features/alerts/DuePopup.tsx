// Global due popup (every client): polls every 30 s and on realtime for pending alarms whose
// effective time has come, and shows them one at a time, oldest first (role=alertdialog).
import { useEffect, useState } from 'react';
import { errorMessage, useToast } from '../../components/Toasts';
import { useCollection } from '../../data/store';
import { dismissPatch, donePatch, dueAlarms, effectiveDue, POLL_MS, snoozePatch, type Alarm } from '../../lib/alarms';
import { formatDateTime } from '../../lib/dates';
import { useTransport } from '../../transport/context';
import type { BaseRecord } from '../../transport/types';
import { useShell } from '../shell/ShellContext';
import { htmlToBody, requestAlertLoad, severityColor, type Severity } from './alerts';

type AlarmRec = Alarm & BaseRecord;

export function DuePopup() {
  const transport = useTransport();
  const toast = useToast();
  const shell = useShell();
  const col = useCollection<AlarmRec>('alert_reminders');
  const [now, setNow] = useState(() => new Date());
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    const id = setInterval(() => {
      setNow(new Date());
      col.store.load(); // poll: catches alarms even if a realtime event was missed
    }, POLL_MS);
    return () => clearInterval(id);
  }, [col.store]);
  // Re-evaluate on every realtime change too (col.items identity changes).
  useEffect(() => setNow(new Date()), [col.items]);
  // Wake up exactly when the next alarm becomes due.
  useEffect(() => {
    const next = col.items
      .filter((a) => a.status === 'pending')
      .map((a) => effectiveDue(a)?.getTime() ?? Infinity)
      .filter((t) => t > Date.now())
      .sort((a, b) => a - b)[0];
    if (!Number.isFinite(next)) return;
    const id = setTimeout(() => setNow(new Date()), Math.min(next - Date.now() + 50, POLL_MS));
    return () => clearTimeout(id);
  }, [col.items, now]);

  const due = dueAlarms(col.items, now);
  const a = due[0];
  if (!a) return null;

  async function act(patch: object, after?: () => void) {
    setBusy(true);
    try {
      col.store.upsertLocal(await transport.update<AlarmRec>('alert_reminders', a.id, patch));
      after?.();
    } catch (e) {
      toast('error', errorMessage(e));
    } finally {
      setBusy(false);
    }
  }
  const hasSnapshot = Boolean(a.alertSubject || a.alertBodyHtml);
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
        role="alertdialog" aria-modal="true" aria-labelledby="due-title" data-testid="due-popup" data-id={a.id}>
        <span className="pill pill-due">Due now</span>
        <h2 id="due-title">{a.title}</h2>
        <p className="muted">Due {formatDateTime(effectiveDue(a))}{due.length > 1 ? ` · ${due.length - 1} more waiting` : ''}</p>
        {a.note && <p className="pre">{a.note}</p>}
        {a.alertSubject && (
          <p>
            <span className="sev-dot" style={{ background: severityColor(a.severity) }} /> {a.alertSubject}
          </p>
        )}
        <div className="row-wrap">
          <button type="button" className="button button-primary" data-testid="due-snooze" disabled={busy} autoFocus onClick={() => act(snoozePatch(new Date()))}>Snooze 10m</button>
          {hasSnapshot && (
            <button type="button" className="button button-ghost" disabled={busy}
              onClick={() => act(dismissPatch(new Date()), () => {
                requestAlertLoad({ severity: (a.severity as Severity) || 'INFO', subject: a.alertSubject ?? '', body: htmlToBody(a.alertBodyHtml), sender: a.createdBy ?? '', recipient: '' });
                shell.go('alerts');
              })}>Load Alert</button>
          )}
          <button type="button" className="button button-ghost" data-testid="due-done" disabled={busy} onClick={() => act(donePatch(new Date()))}>Mark Done</button>
          <button type="button" className="button button-ghost" data-testid="due-dismiss" disabled={busy} onClick={() => act(dismissPatch(new Date()))}>Dismiss</button>
        </div>
      </div>
    </div>
  );
}
