// The Update dialog (desktop only): the state in words, this and the newest version, a
// progress bar with the bytes received while the download runs, and the separate, explicit
// actions Check for updates, Download, Cancel download, Prepare and Restart, each enabled only
// when the updater's state allows it (none starts the next). Failures and refusals are plain
// sentences. Restart shows what the shell verified and whether the Relay launcher took it (then
// every action stays disabled while the app exits into the new version) or this installation is
// not managed by the launcher.
import { Modal } from '../../components/Modal';
import type { UpdateController, UpdateViewState } from './updateController';
import { allowedActions, describeUpdate, downloadProgress, type UpdateAction } from './updateModel';

const LABELS: Record<UpdateAction, string> = {
  check: 'Check for updates',
  download: 'Download',
  cancel: 'Cancel download',
  prepare: 'Prepare',
  restart: 'Restart',
};

const RUNNING: Record<UpdateAction, string> = {
  check: 'Checking…',
  download: 'Starting download…',
  cancel: 'Cancelling…',
  prepare: 'Starting preparation…',
  restart: 'Verifying…',
};

export type UpdateHandlers = Record<UpdateAction, () => void>;

/** The dialog's content (pure rendering; the markup tests render it directly). */
export function UpdatePanel({ state, on }: { state: UpdateViewState; on: UpdateHandlers }) {
  const s = state.snapshot;
  const status = state.unavailable !== null ? { text: state.unavailable, error: true } : describeUpdate(s, state.checked);
  // After a hand-off the app exits into the new version: nothing more to do here.
  const allowed = allowedActions(state.unavailable === null && !state.restart?.handedOff ? s : null, state.busy);
  const progress = downloadProgress(s);
  return (
    <div data-testid="update-panel">
      <p className={status.error ? 'error-text' : undefined} role="status" aria-live="polite" data-testid="update-state">
        {status.text}
      </p>
      <dl className="kv">
        <dt>This version</dt>
        <dd data-testid="update-current">{s?.currentVersion ? `v${s.currentVersion}` : '—'}</dd>
        <dt>Newest version</dt>
        <dd data-testid="update-latest">{s?.latestVersion ? `v${s.latestVersion}` : '—'}</dd>
      </dl>
      {progress && (
        <div className="update-progress" data-testid="update-progress">
          <div className="update-progress-bar" role="progressbar" aria-label="Download progress" aria-valuemin={0} aria-valuemax={100}
            aria-valuenow={progress.percent} aria-valuetext={progress.text}>
            <div className="update-progress-fill" style={{ width: `${progress.percent}%` }} />
          </div>
          <span className="muted small" data-testid="update-bytes">{progress.text}</span>
        </div>
      )}
      <div className="row-wrap" role="group" aria-label="Update actions">
        {(Object.keys(LABELS) as UpdateAction[]).map((action) => (
          <button key={action} type="button" data-testid={`update-${action}`} disabled={!allowed[action]} onClick={on[action]}
            className={action === 'cancel' ? 'button button-ghost' : 'button'}>
            {state.busy === action ? RUNNING[action] : LABELS[action]}
          </button>
        ))}
      </div>
      {state.message && (
        <p className={state.message.error ? 'error-text' : 'muted'} role={state.message.error ? 'alert' : 'status'} data-testid="update-message">
          {state.message.text}
        </p>
      )}
    </div>
  );
}

export function handlersOf(controller: UpdateController): UpdateHandlers {
  return {
    check: () => void controller.check(),
    download: () => void controller.download(),
    cancel: () => void controller.cancel(),
    prepare: () => void controller.prepare(),
    restart: () => void controller.restart(),
  };
}

export function UpdateDialog({ controller, state, onClose }: { controller: UpdateController; state: UpdateViewState; onClose: () => void }) {
  return (
    <Modal title="Update Relay" onClose={onClose} testId="update-dialog">
      <UpdatePanel state={state} on={handlersOf(controller)} />
    </Modal>
  );
}
