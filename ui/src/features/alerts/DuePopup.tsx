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
import { emptyDraft, htmlToBody, requestAlertLoad, severityColor, type Severity } from './alerts';

type AlarmRec = Alarm & BaseRecord;

export function DuePopup() {
  const col = useCollection<AlarmRec>('alert_reminders');
  const [now, setNow] = useState(() => new Date());
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
  return a ? <DueDialog a={a} more={due.length - 1} /> : null;
}

/** WebAudio square pulses (880/1175/740/988 Hz) every 1.5 s while an alarm is showing. */
function useAlarmTone(active: boolean) {
  useEffect(() => {
    if (!active || typeof AudioContext === 'undefined') return;
    let ctx: AudioContext | null = null;
    const play = () => {
      try {
        ctx ??= new AudioContext();
        const t0 = ctx.currentTime;
        [880, 1175, 740, 988].forEach((hz, i) => {
          const osc = ctx!.createOscillator();
          const gain = ctx!.createGain();
          osc.type = 'square';
          osc.frequency.value = hz;
          gain.gain.value = 0.38 * 0.25;
          osc.connect(gain).connect(ctx!.destination);
          osc.start(t0 + i * 0.15);
          osc.stop(t0 + i * 0.15 + 0.12);
        });
      } catch {
        /* audio blocked until a user gesture: the flashing dialog still shows */
      }
    };
    play();
    const id = setInterval(play, 1500);
    return () => {
      clearInterval(id);
      void ctx?.close().catch(() => {});
    };
  }, [active]);
}

function DueDialog({ a, more }: { a: AlarmRec; more: number }) {
  const transport = useTransport();
  const toast = useToast();
  const shell = useShell();
  const col = useCollection<AlarmRec>('alert_reminders');
  const [busy, setBusy] = useState(false);
  useAlarmTone(true);

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
            <button type="button" className="button button-ghost" disabled={busy}
              onClick={() => act(dismissPatch(new Date()), () => {
                requestAlertLoad({ ...emptyDraft, severity: (a.severity as Severity) || 'INFO', subject: a.alertSubject ?? '', ...htmlToBody(a.alertBodyHtml), sender: a.createdBy ?? '', recipient: '' });
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
