// Markup tests for the Recovery section of Settings → Administration, rendered from controller
// states through the whole screen: the Owner sees it, an Administrator does not; the running
// build and the retained ones with version and short commit; "Roll back" only on a build that
// can read today's data, disabled while a request runs; the reason on the others; an unmanaged
// installation's sentence; the rollback's Confirm naming the version.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { adminSnapshot, recoveryStatus, type AdminRole } from '../../transport/desktop';
import { AdministrationView } from './AdministrationPanel';
import { AdminController, type AdminState } from './adminController';
import { LOCK_AT, fakeAdminShell, snapshotFixture } from './adminTestkit';
import { RecoveryController, type RecoveryState } from './recoveryController';

const shell = fakeAdminShell();
const ctl = new AdminController(shell.bridge);
const recoveryCtl = new RecoveryController(shell.bridge, ctl);
const snapshot = adminSnapshot(snapshotFixture());
const status = recoveryStatus(shell.state.recovery);

function session(role: AdminRole, patch: Partial<AdminState> = {}): AdminState {
  return { phase: 'session', session: { username: role, role, lockAtMs: LOCK_AT }, snapshot, busy: false, message: null, dialog: null, ...patch };
}

const recovery = (patch: Partial<RecoveryState> = {}) => ({
  state: { status, loadError: null, confirming: null, confirmingRepair: null, repairing: null, restarting: null, message: null, ...patch },
  ctl: recoveryCtl,
});
const render = (state: AdminState, panel = recovery()) => renderToStaticMarkup(<AdministrationView state={state} ctl={ctl} recovery={panel} />);
const section = (html: string) => html.slice(html.indexOf('data-testid="admin-recovery"'));

describe('Recovery section markup', () => {
  it('lists the builds and offers Roll back only where it is possible', () => {
    const html = section(render(session('owner')));
    expect(html).toContain('v1.0.0');
    expect(html).toContain(`<code>${'a'.repeat(12)}</code>`);
    expect(html).toContain('Running');
    expect(html.match(/data-testid="admin-recovery-rollback"/g)).toHaveLength(1);
    expect(html).toContain('aria-label="Roll back to v0.9.0"');
    expect(html).toContain('Cannot read today’s data format');
    expect(section(render(session('owner', { busy: true })))).toMatch(/<button[^>]*data-testid="admin-recovery-rollback"[^>]*disabled=""/);
  });

  it('offers Repair on every build with a provable record and shows the download while it runs', () => {
    const html = section(render(session('owner')));
    expect(html.match(/data-testid="admin-recovery-repair"/g)).toHaveLength(3);
    const running = recovery({
      repairing: status.predecessors[0],
      status: { ...status, repair: { version: '0.9.0', downloadedBytes: 2 * 1024 * 1024, totalBytes: 8 * 1024 * 1024 } },
    });
    const busy = section(render(session('owner'), running));
    expect(busy).toContain('Repairing v0.9.0: 2.0 MiB of 8.0 MiB');
    expect(busy).toMatch(/<progress[^>]*max="8388608"[^>]*value="2097152"/);
    expect(busy).toMatch(/<button[^>]*data-testid="admin-recovery-repair"[^>]*disabled=""/);
  });

  it('is the Owner’s only', () => {
    expect(render(session('administrator'))).not.toContain('data-testid="admin-recovery"');
    expect(render(session('publisher'))).not.toContain('data-testid="admin-recovery"');
  });

  it('says when the launcher does not manage this installation, and confirms a rollback by version', () => {
    const unmanaged = recovery({ status: recoveryStatus({ managed: false }) });
    expect(section(render(session('owner'), unmanaged))).toContain('not managed by the Relay launcher');
    const confirming = recovery({ confirming: status.predecessors[0] });
    expect(section(render(session('owner'), confirming))).toContain('Roll back to Relay v0.9.0?');
  });
});
