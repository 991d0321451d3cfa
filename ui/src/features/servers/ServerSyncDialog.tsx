// Servers → "Sync from file…": makes the Servers list equal a complete export file. Choose a
// file → preview (counts; the servers to add, update and, called out, remove with their ids) →
// optionally download the current list → "Apply sync" (confirmed when it removes servers) →
// progress bar → confirmed counts and errors. Online only: the preview reads the whole list from
// the server (an .xlsx file is read by the server too), and Apply is disabled with the reason
// while Relay is not connected. Planning and applying live in serverSyncPlan / serverSyncApply;
// this file only drives them.
import { useRef, useState } from 'react';
import { Confirm, Modal } from '../../components/Modal';
import { errorMessage, useToast } from '../../components/Toasts';
import { useStores } from '../../data/store';
import { downloadText } from '../../lib/download';
import { MAX_IMPORT_BYTES, exportFileName } from '../../lib/importExport';
import { fieldLabel } from '../../lib/limits';
import { plural } from '../../lib/text';
import { useConnectionState, useTransport } from '../../transport/context';
import { applyServersSync, isApplied, type SyncProgress, type SyncResult } from './serverSyncApply';
import { planServersSync, readServersFile, type SyncPlan } from './serverSyncPlan';

export const SYNC_OFFLINE_REASON = 'Relay is not connected: syncing needs a live connection to the server.';

type Phase =
  | { kind: 'choose' }
  | { kind: 'preview'; plan: SyncPlan }
  | { kind: 'applying'; plan: SyncPlan; progress: SyncProgress | null }
  | { kind: 'done'; plan: SyncPlan; result: SyncResult };

function PlanLists({ plan }: { plan: SyncPlan }) {
  return (
    <>
      {plan.removed.length > 0 && (
        <section className="sync-removals" data-testid="sync-removed" aria-label="Servers to remove">
          <p className="warn-text">
            <strong>{plural(plan.removed.length, 'server')} {plan.removed.length === 1 ? 'is' : 'are'} not in the file and will be removed:</strong>
          </p>
          <ul className="sync-list">
            {plan.removed.map((r) => (
              <li key={r.id} data-testid="sync-removed-item" data-id={r.id}>
                {r.name || '(no name)'} <span className="muted small">({r.id})</span>
              </li>
            ))}
          </ul>
        </section>
      )}
      {plan.added.length > 0 && (
        <section data-testid="sync-added" aria-label="Servers to add">
          <h3 className="subhead">Add</h3>
          <ul className="sync-list">{plan.added.map((a) => <li key={a.name} data-testid="sync-added-item">{a.name}</li>)}</ul>
        </section>
      )}
      {plan.updated.length > 0 && (
        <section data-testid="sync-updated" aria-label="Servers to update">
          <h3 className="subhead">Update</h3>
          <ul className="sync-list">
            {plan.updated.map((u) => (
              <li key={u.id} data-testid="sync-updated-item">
                {u.name} <span className="muted small">({Object.keys(u.patch).map((k) => fieldLabel(k, 'servers')).join(', ')})</span>
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}

function Counts({ plan, result }: { plan: SyncPlan; result?: SyncResult }) {
  const n = result
    ? { added: result.imported, updated: result.updated, removed: result.removed, unchanged: result.unchanged }
    : { added: plan.added.length, updated: plan.updated.length, removed: plan.removed.length, unchanged: plan.unchanged };
  return (
    <p data-testid={result ? 'sync-result' : 'sync-summary'}>
      {result ? (result.errors.length > 0 ? 'Stopped. Confirmed changes: ' : 'Done: ') : `${plural(plan.incomingCount, 'server')} in ${plan.fileName}, ${plural(plan.currentCount, 'server')} now: `}
      <span data-testid="sync-count-added">{n.added}</span> {result ? 'added' : 'to add'} ·{' '}
      <span data-testid="sync-count-updated">{n.updated}</span> {result ? 'updated' : 'to update'} ·{' '}
      <span data-testid="sync-count-removed">{n.removed}</span> {result ? 'removed' : 'to remove'} ·{' '}
      <span data-testid="sync-count-unchanged">{n.unchanged}</span> unchanged
    </p>
  );
}

export function ServerSyncDialog({ onClose }: { onClose: () => void }) {
  const transport = useTransport();
  const stores = useStores();
  const toast = useToast();
  const state = useConnectionState();
  const live = useRef(state);
  live.current = state;
  const online = () => live.current === 'connected' && stores.gate.refusal('servers') === null;
  const [phase, setPhase] = useState<Phase>({ kind: 'choose' });
  const [errors, setErrors] = useState<string[]>([]);
  const [reading, setReading] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const connected = online();

  async function preview(file: File) {
    if (file.size > MAX_IMPORT_BYTES) return setErrors(['The file is larger than 25 MB.']);
    const read = await readServersFile(file, (f, sheet) =>
      online() ? transport.readSpreadsheet(f, sheet) : Promise.reject(new Error(SYNC_OFFLINE_REASON)));
    if (!read.ok) return setErrors(read.errors);
    if (!online()) return setErrors([SYNC_OFFLINE_REASON]);
    const identity = transport.authIdentity();
    let current: unknown[];
    try {
      current = await transport.getFullList<unknown>('servers');
    } catch (e) {
      return setErrors([`The current Servers list could not be read: ${errorMessage(e)}`]);
    }
    const planned = planServersSync({ fileName: file.name, rows: read.value, current, identity });
    if (!planned.ok) return setErrors(planned.errors);
    setPhase({ kind: 'preview', plan: planned.value });
  }

  async function onFile(file: File | undefined) {
    setErrors([]);
    setPhase({ kind: 'choose' });
    if (!file) return;
    setReading(true);
    try {
      await preview(file);
    } finally {
      setReading(false);
    }
  }

  async function apply(plan: SyncPlan) {
    setConfirming(false);
    setPhase({ kind: 'applying', plan, progress: null });
    const result = await applyServersSync(plan, {
      readAll: () => transport.getFullList<unknown>('servers'),
      send: (operations) => transport.syncServers(operations),
      online,
      identity: () => transport.authIdentity(),
      onProgress: (progress) => setPhase({ kind: 'applying', plan, progress }),
    });
    setPhase({ kind: 'done', plan, result });
    if (result.errors.length === 0) toast('success', 'The Servers list now matches the file.');
  }

  const plan = phase.kind === 'choose' ? null : phase.plan;
  const changes = plan ? plan.added.length + plan.updated.length + plan.removed.length : 0;
  const blocked = !connected ? SYNC_OFFLINE_REASON : changes === 0 ? 'Nothing to change: the list already matches the file.' : null;
  return (
    <Modal title="Sync Servers from file" wide testId="server-sync-dialog" onClose={() => phase.kind !== 'applying' && onClose()}>
      <p className="muted small">
        The file must hold every server to keep: servers it does not list are removed. Rows match current servers by name
        (case-insensitive); a column the file leaves out is kept as stored.
      </p>
      {phase.kind !== 'applying' && (
        <label className="field">
          <span className="field-label">Servers file (.csv, .json or .xlsx, ≤ 25 MB, ≤ 10,000 rows)</span>
          <input className="input" type="file" accept=".csv,.json,.xlsx,text/csv,application/json" data-testid="sync-file" disabled={reading}
            onChange={(e) => { void onFile(e.target.files?.[0]); e.target.value = ''; }} />
        </label>
      )}
      {reading && <p className="muted" role="status">Reading the file and the current list…</p>}
      {errors.length > 0 && (
        <ul className="error-list" role="alert" data-testid="sync-errors">
          {errors.slice(0, 20).map((e, i) => <li key={i}>{e}</li>)}
          {errors.length > 20 && <li>…and {errors.length - 20} more.</li>}
        </ul>
      )}
      {phase.kind === 'preview' && (
        <div className="form" data-testid="sync-preview">
          <Counts plan={phase.plan} />
          <PlanLists plan={phase.plan} />
          <div className="row-end">
            <button type="button" className="button button-ghost" data-testid="sync-backup"
              onClick={() => downloadText(exportFileName('servers-before-sync', 'json', new Date()), phase.plan.backupJson, 'application/json')}>
              Download current list
            </button>
            {blocked && <span className={connected ? 'muted' : 'error-text'} id="sync-blocked" data-testid="sync-blocked">{blocked}</span>}
            <button type="button" className="button button-primary" data-testid="sync-apply" aria-describedby={blocked ? 'sync-blocked' : undefined}
              disabled={blocked !== null || isApplied(phase.plan)}
              onClick={() => (phase.plan.removed.length > 0 ? setConfirming(true) : void apply(phase.plan))}>
              Apply sync
            </button>
          </div>
        </div>
      )}
      {phase.kind === 'applying' && (
        <div className="form" data-testid="sync-applying">
          <progress className="sync-progress" aria-label="Servers sync progress" data-testid="sync-progress"
            max={phase.progress?.total ?? changes} value={phase.progress?.processed ?? 0} />
          <p className="muted" role="status">
            {phase.progress?.stage === 'removing' ? 'Removing servers' : 'Saving servers'}… {phase.progress?.processed ?? 0} of {plural(changes, 'change')}
          </p>
        </div>
      )}
      {phase.kind === 'done' && (
        <div className="form" data-testid="sync-done">
          <Counts plan={phase.plan} result={phase.result} />
          {phase.result.errors.length > 0 && (
            <ul className="error-list" role="alert" data-testid="sync-result-errors" data-uncertain={phase.result.outcomeUncertain}>
              {phase.result.errors.map((e, i) => <li key={i}>{e}</li>)}
            </ul>
          )}
          <div className="row-end">
            <button type="button" className="button button-primary" data-testid="sync-close" onClick={onClose}>Close</button>
          </div>
        </div>
      )}
      {confirming && phase.kind === 'preview' && (
        <Confirm title="Remove servers" confirmLabel="Apply sync" onCancel={() => setConfirming(false)} onConfirm={() => void apply(phase.plan)}
          message={`Apply the sync and remove ${plural(phase.plan.removed.length, 'server')} the file does not list? Removed servers cannot be restored except from a downloaded list.`} />
      )}
    </Modal>
  );
}
