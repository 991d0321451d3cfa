// Administration screen, the Recovery section (the Owner on the server PC): the running build and
// the retained builds the recovery launcher keeps (version, commit, when each became current),
// "Roll back" on a retained build that can read today's data (after the app's Confirm dialog),
// and why the others cannot be chosen; "Repair" on every build whose record is intact (after its
// Confirm), with a progress bar of the download while it runs; the section's notices
// (role="status") and errors (role="alert"). An installation the launcher does not manage says
// so and offers nothing.
import { Confirm } from '../../components/Modal';
import { formatDateTime } from '../../lib/dates';
import type { RecoveryStatus, RetainedBuild } from '../../transport/desktop';
import { repairable, rollbackBlocked, type RecoveryController, type RecoveryState } from './recoveryController';

export type RecoveryPanelController = Pick<
  RecoveryController,
  'askRollback' | 'cancelRollback' | 'confirmRollback' | 'askRepair' | 'cancelRepair' | 'confirmRepair'
>;

const mib = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;

const versionOf = (b: RetainedBuild) => (b.version ? `v${b.version}` : b.build);

function BuildRow({ status, build, busy, ctl }: { status: RecoveryStatus; build: RetainedBuild; busy: boolean; ctl: RecoveryPanelController }) {
  const blocked = rollbackBlocked(status, build);
  return (
    <tr data-testid="admin-recovery-build" data-build={build.build}>
      <td>{versionOf(build)}</td>
      <td><code>{build.commit ? build.commit.slice(0, 12) : '—'}</code></td>
      <td>{build.promotedAtMs ? formatDateTime(new Date(build.promotedAtMs)) : '—'}</td>
      <td>
        {blocked === null ? (
          <button type="button" className="button button-ghost small" data-testid="admin-recovery-rollback" disabled={busy}
            aria-label={`Roll back to ${versionOf(build)}`} onClick={() => ctl.askRollback(build)}>
            Roll back
          </button>
        ) : (
          <span className="muted small">{blocked}</span>
        )}
        {repairable(status, build) && (
          <button type="button" className="button button-ghost small" data-testid="admin-recovery-repair" disabled={busy}
            aria-label={`Repair ${versionOf(build)}`} onClick={() => ctl.askRepair(build)}>
            Repair
          </button>
        )}
      </td>
    </tr>
  );
}

export function RecoverySection({ state, busy, ctl }: { state: RecoveryState; busy: boolean; ctl: RecoveryPanelController }) {
  const { status, loadError, confirming, confirmingRepair, repairing, restarting, message } = state;
  const working = busy || restarting !== null || repairing !== null;
  const progress = repairing ? status?.repair ?? null : null;
  return (
    <section data-testid="admin-recovery" aria-busy={working || undefined}>
      <h3>Recovery</h3>
      {status === null && !loadError && <p className="muted small" role="status">Reading the retained builds…</p>}
      {loadError && <p className="error-text" role="alert">{loadError}</p>}
      {status && !status.managed && (
        <p className="muted small" data-testid="admin-recovery-unmanaged">
          This installation is not managed by the Relay launcher, so no earlier builds are retained.
        </p>
      )}
      {status?.managed && status.current && (
        <>
          <p className="muted small">
            The Relay launcher keeps the builds that ran before. Rolling back restarts Relay into one of them; your data stays
            as it is. Needs your password again.
          </p>
          <table className="table" aria-label="Retained builds">
            <thead>
              <tr><th>Version</th><th>Commit</th><th>Current since</th><th /></tr>
            </thead>
            <tbody>
              {[status.current, ...status.predecessors].map((b) => <BuildRow key={b.build} status={status} build={b} busy={working} ctl={ctl} />)}
            </tbody>
          </table>
          {status.predecessors.length === 0 && <p className="muted small">No earlier build is retained yet.</p>}
        </>
      )}
      {repairing && (
        <div data-testid="admin-recovery-repairing" role="status">
          <p className="muted small">
            Repairing {versionOf(repairing)}
            {progress?.totalBytes ? `: ${mib(progress.downloadedBytes)} of ${mib(progress.totalBytes)}` : '…'}
          </p>
          <progress max={progress?.totalBytes ?? undefined} value={progress?.totalBytes ? progress.downloadedBytes : undefined}
            aria-label={`Repair download of ${versionOf(repairing)}`} />
        </div>
      )}
      {message && (
        <p className={message.error ? 'error-text' : 'muted'} role={message.error ? 'alert' : 'status'} data-testid="admin-recovery-message">
          {message.text}
        </p>
      )}
      {confirming && (
        <Confirm title={`Roll back to Relay ${versionOf(confirming)}?`}
          message={`Relay restarts into ${versionOf(confirming)}, a build that ran here before. Your data stays as it is; newer releases stay available as updates.`}
          confirmLabel="Roll back" onConfirm={() => void ctl.confirmRollback()} onCancel={ctl.cancelRollback} />
      )}
      {confirmingRepair && (
        <Confirm title={`Repair Relay ${versionOf(confirmingRepair)}?`}
          message={`Relay checks the files of ${versionOf(confirmingRepair)}; if they changed, it downloads that release from GitHub again, verifies it and puts its program back. Nothing else changes.`}
          confirmLabel="Repair" onConfirm={() => void ctl.confirmRepair()} onCancel={ctl.cancelRepair} />
      )}
    </section>
  );
}
