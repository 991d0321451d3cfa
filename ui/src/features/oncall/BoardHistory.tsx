// On-call history on the board (issue #38 item 7a): the "Board as of" picker (a datetime-local
// input and Now) that switches the board to a read-only past view, the banner that labels that
// view, the `usePastBoard` hook that rebuilds the past rows from the server's `oncall_history`,
// and "Export history" (the changes of a date range as CSV). The rules live in ./history.
import { useEffect, useState } from 'react';
import { Modal } from '../../components/Modal';
import { errorMessage, useToast } from '../../components/Toasts';
import type { OnCallRow } from '../../lib/board';
import { toCsv } from '../../lib/csv';
import { localDateKey, toLocalInput } from '../../lib/dates';
import { downloadText } from '../../lib/download';
import { formatPhone } from '../../lib/phone';
import { plural } from '../../lib/text';
import { useTransport } from '../../transport/context';
import {
  boardAt,
  changesAfterFilter,
  changesBetweenFilter,
  historyCsvFileName,
  historyCsvRecords,
  type HistoryRecord,
} from './history';

const HISTORY = 'oncall_history';

/** The board's rows at `asOf` (null while loading or when `asOf` is null), rebuilt whenever today's rows change. */
export function usePastBoard(asOf: Date | null, current: readonly OnCallRow[]): { rows: OnCallRow[] | null; error: string | null } {
  const transport = useTransport();
  const [state, setState] = useState<{ rows: OnCallRow[] | null; error: string | null }>({ rows: null, error: null });
  const at = asOf?.getTime() ?? null;
  useEffect(() => {
    if (at === null) return setState({ rows: null, error: null });
    let live = true;
    setState({ rows: null, error: null });
    transport
      .getFullList<HistoryRecord>(HISTORY, { filter: changesAfterFilter(new Date(at)), sort: '-revision' })
      .then((changes) => live && setState({ rows: boardAt(current, changes, new Date(at)), error: null }))
      .catch((e) => live && setState({ rows: null, error: errorMessage(e, 'Could not load the on-call history.') }));
    return () => {
      live = false;
    };
  }, [at, current, transport]);
  return state;
}

/** "Board as of": pick a past moment (not later than now) or go back to Now; Export history. */
export function BoardHistoryBar({ asOf, onAsOf }: { asOf: Date | null; onAsOf: (at: Date | null) => void }) {
  const [draft, setDraft] = useState(asOf ? toLocalInput(asOf) : '');
  const [exporting, setExporting] = useState(false);
  // Back to the live board from elsewhere (the banner's Back to now) clears the picker.
  useEffect(() => {
    if (!asOf) setDraft('');
  }, [asOf]);
  /** A moment (to the second) before now shows the past board; empty or a later moment, the live one. */
  function pick(value: string) {
    setDraft(value);
    const at = value ? new Date(value) : null;
    if (!at) return onAsOf(null);
    if (!Number.isNaN(at.getTime())) onAsOf(at.getTime() < Date.now() ? at : null);
  }
  return (
    <div className="row-wrap" data-testid="board-history">
      <label className="muted small" htmlFor="board-asof">Board as of</label>
      <input id="board-asof" type="datetime-local" className="input" data-testid="board-asof" value={draft} step={1} onChange={(e) => pick(e.target.value)} />
      <button type="button" className="button button-ghost" data-testid="board-asof-now" disabled={!asOf} onClick={() => pick('')}>Now</button>
      <button type="button" className="button button-ghost" data-testid="history-export" onClick={() => setExporting(true)}>Export history</button>
      {exporting && <ExportHistory onClose={() => setExporting(false)} />}
    </div>
  );
}

/** The label of a past view: what moment it shows, that it is read-only, and the way back. */
export function PastViewBanner({ asOf, error, onNow }: { asOf: Date; error: string | null; onNow: () => void }) {
  return (
    <p className="panel" role="status" data-testid="board-past-view">
      <strong>Past view</strong>: the board as it was at {asOf.toLocaleString()}. Read-only.{' '}
      {error && <span className="error-text">{error} </span>}
      <button type="button" className="button button-ghost small" onClick={onNow}>Back to now</button>
    </p>
  );
}

/** Start of the local day `key` (YYYY-MM-DD), or its last millisecond with `endOfDay`. */
function dayBound(key: string, endOfDay: boolean): Date | null {
  const d = new Date(`${key}T00:00:00`);
  if (Number.isNaN(d.getTime())) return null;
  if (endOfDay) d.setHours(23, 59, 59, 999);
  return d;
}

function ExportHistory({ onClose }: { onClose: () => void }) {
  const transport = useTransport();
  const toast = useToast();
  const today = localDateKey(new Date());
  const [from, setFrom] = useState(localDateKey(new Date(Date.now() - 7 * 24 * 60 * 60 * 1000)));
  const [to, setTo] = useState(today);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function exportRange() {
    const start = dayBound(from, false);
    const end = dayBound(to, true);
    if (!start || !end || start > end) return setError('Pick a start date on or before the end date.');
    setBusy(true);
    try {
      const changes = await transport.getFullList<HistoryRecord>(HISTORY, { filter: changesBetweenFilter(start, end), sort: 'revision' });
      const records = historyCsvRecords(changes, start, end, formatPhone);
      if (records.length === 0) {
        setError('No on-call changes in that range.');
        return setBusy(false);
      }
      downloadText(historyCsvFileName(start, end), toCsv(records), 'text/csv;charset=utf-8');
      toast('success', `Exported ${plural(records.length, 'change')}.`);
      onClose();
    } catch (e) {
      setError(errorMessage(e));
      setBusy(false);
    }
  }
  return (
    <Modal title="Export on-call history" onClose={onClose} testId="history-export-dialog">
      <form className="form" onSubmit={(e) => { e.preventDefault(); void exportRange(); }}>
        <label className="field-label" htmlFor="history-from">From</label>
        <input id="history-from" type="date" className="input" data-testid="history-from" value={from} max={today} onChange={(e) => { setFrom(e.target.value); setError(null); }} />
        <label className="field-label" htmlFor="history-to">To</label>
        <input id="history-to" type="date" className="input" data-testid="history-to" value={to} max={today} onChange={(e) => { setTo(e.target.value); setError(null); }} />
        {error && <p className="error-text" role="alert" data-testid="history-export-error">{error}</p>}
        <div className="row-end"><button type="submit" className="button button-primary" data-testid="history-export-save" disabled={busy}>Export CSV</button></div>
      </form>
    </Modal>
  );
}
