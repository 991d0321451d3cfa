// Compose toolbar → Start Bridge and Schedule Bridge. Start Bridge asks the operator to make sure
// the meeting is recorded, then opens the Teams meeting draft (./teamsLink) through the external
// opener (desktop `open_external` / a browser tab) and records a bridge_history row. Schedule
// Bridge collects start, duration, subject and organizer, builds the invitation (./ics) and saves
// it as a download (the desktop shell has no save-file command, so it uses the same download).
// Link and calendar rules live in the pure modules; this file only wires them to the UI.
import { useId, useMemo, useState, type FormEvent } from 'react';
import { Modal } from '../../components/Modal';
import { errorMessage, useToast } from '../../components/Toasts';
import { toLocalInput } from '../../lib/dates';
import { downloadText } from '../../lib/download';
import { externalOpener } from '../../lib/openExternal';
import { plural } from '../../lib/text';
import { useTransport } from '../../transport/context';
import {
  BRIDGE_DURATIONS,
  DEFAULT_DURATION,
  buildIcs,
  icsFileName,
  nextHalfHour,
  parseLocalInput,
  scheduleSubject,
  type BridgeAttendee,
} from './ics';
import { bridgeSubject, teamsMeetingLink } from './teamsLink';

/** localStorage key of the organizer email Schedule Bridge remembers. */
export const ORGANIZER_KEY = 'relay.bridge.organizer';

function rememberedOrganizer(): string {
  try {
    return localStorage.getItem(ORGANIZER_KEY) ?? '';
  } catch {
    return '';
  }
}

function StartBridge({ emails, onClose, onStarted }: { emails: string[]; onClose: () => void; onStarted: () => Promise<void> }) {
  const transport = useTransport();
  const toast = useToast();
  const open = useMemo(() => externalOpener(transport), [transport]);
  const [subject, setSubject] = useState(() => bridgeSubject(new Date()));
  const [busy, setBusy] = useState(false);
  const link = teamsMeetingLink(subject, emails);
  const id = useId();
  async function go(e: FormEvent) {
    e.preventDefault();
    if (!link.ok) return;
    setBusy(true);
    try {
      await open(link.url);
    } catch (x) {
      setBusy(false);
      return toast('error', errorMessage(x, 'Could not open Teams.'));
    }
    toast('success', `Opened a Teams meeting draft for ${plural(link.attendees.length, 'attendee')}.`);
    onClose();
    await onStarted();
  }
  return (
    <Modal title="Start bridge" onClose={onClose} testId="start-bridge">
      <form className="form" onSubmit={go}>
        <p className="warn-text" data-testid="start-bridge-recording">Please ensure meeting recording is enabled.</p>
        <label className="field-label" htmlFor={`${id}-subject`}>Meeting subject</label>
        <input id={`${id}-subject`} className="input" data-testid="start-bridge-subject" value={subject} onChange={(e) => setSubject(e.target.value)} />
        {link.ok ? (
          <p className="muted small" data-testid="start-bridge-summary">Teams opens a meeting draft with {plural(link.attendees.length, 'attendee')}.</p>
        ) : (
          <p className="error-text" role="alert" data-testid="start-bridge-error">{link.error}</p>
        )}
        <div className="row-end">
          <button type="button" className="button button-ghost" onClick={onClose}>Cancel</button>
          <button type="submit" className="button button-primary" data-testid="start-bridge-confirm" disabled={!link.ok || busy}>I Understand</button>
        </div>
      </form>
    </Modal>
  );
}

function ScheduleBridge({ attendees, onClose }: { attendees: BridgeAttendee[]; onClose: () => void }) {
  const toast = useToast();
  const id = useId();
  const [start, setStart] = useState(() => toLocalInput(nextHalfHour(new Date())));
  const [duration, setDuration] = useState<number>(DEFAULT_DURATION);
  const [subject, setSubject] = useState(() => scheduleSubject(nextHalfHour(new Date())));
  const [organizer, setOrganizer] = useState(rememberedOrganizer);
  const [error, setError] = useState<string | null>(null);
  function save(e: FormEvent) {
    e.preventDefault();
    const stamp = new Date();
    const r = buildIcs({ start: parseLocalInput(start), durationMinutes: duration, summary: subject, organizer, attendees, stamp });
    if (!r.ok) return setError(r.error);
    try {
      localStorage.setItem(ORGANIZER_KEY, organizer.trim());
    } catch {
      /* private mode: not remembered */
    }
    downloadText(icsFileName(stamp), r.text, 'text/calendar;charset=utf-8');
    toast('success', `Saved the invitation for ${plural(attendees.length, 'attendee')}; open it with your calendar app.`);
    onClose();
  }
  return (
    <Modal title="Schedule bridge" onClose={onClose} testId="schedule-bridge">
      <form className="form" onSubmit={save} noValidate>
        <label className="field">
          <span className="field-label">Start</span>
          <input type="datetime-local" className="input" data-testid="schedule-start" value={start} onChange={(e) => { setStart(e.target.value); setError(null); }} />
        </label>
        <label className="field">
          <span className="field-label">Duration</span>
          <select className="input" data-testid="schedule-duration" value={duration} onChange={(e) => setDuration(Number(e.target.value))}>
            {BRIDGE_DURATIONS.map((m) => <option key={m} value={m}>{m} minutes</option>)}
          </select>
        </label>
        <label className="field">
          <span className="field-label">Subject</span>
          <input className="input" data-testid="schedule-subject" value={subject} onChange={(e) => { setSubject(e.target.value); setError(null); }} />
        </label>
        <label className="field">
          <span className="field-label">Organizer email (optional)</span>
          <input type="email" className="input" data-testid="schedule-organizer" aria-describedby={`${id}-org-hint`} value={organizer} onChange={(e) => { setOrganizer(e.target.value); setError(null); }} />
          <span className="muted small" id={`${id}-org-hint`}>Without one, the file is a plain calendar entry (no meeting replies).</span>
        </label>
        <p className="muted small" id={`${id}-who`}>{plural(attendees.length, 'attendee')} will be invited.</p>
        {error && <p className="error-text" role="alert" data-testid="schedule-error">{error}</p>}
        <div className="row-end">
          <button type="button" className="button button-ghost" onClick={onClose}>Cancel</button>
          <button type="submit" className="button button-primary" data-testid="schedule-save" aria-describedby={`${id}-who`}>Save .ics</button>
        </div>
      </form>
    </Modal>
  );
}

/** The two toolbar buttons and their dialogs. `attendees` are the current recipients, in order. */
export function BridgeActions({ attendees, onStarted }: { attendees: BridgeAttendee[]; onStarted: () => Promise<void> }) {
  const toast = useToast();
  const [open, setOpen] = useState<null | 'start' | 'schedule'>(null);
  const guard = (kind: 'start' | 'schedule') => () => (attendees.length === 0 ? toast('warning', 'Add recipients first.') : setOpen(kind));
  return (
    <>
      <button type="button" className="button button-ghost" data-testid="bridge-start" onClick={guard('start')}>Start Bridge</button>
      <button type="button" className="button button-ghost" data-testid="bridge-schedule" onClick={guard('schedule')}>Schedule Bridge</button>
      {open === 'start' && <StartBridge emails={attendees.map((a) => a.email)} onClose={() => setOpen(null)} onStarted={onStarted} />}
      {open === 'schedule' && <ScheduleBridge attendees={attendees} onClose={() => setOpen(null)} />}
    </>
  );
}
