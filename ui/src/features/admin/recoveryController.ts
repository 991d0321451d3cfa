// Administration screen, the Recovery section's flow (no React; the Owner on the server PC): the
// recovery launcher's retained builds read on start (`recovery_status`), "Roll back" on a
// retained build that can read today's data (after a confirmation, `recovery_rollback` with that
// build id only), then the notice that Relay restarts into it (the app exits and the launcher
// switches). The call runs through the Administration session (`AdminController.runPrivileged`):
// its busy flag, the password prompt and one retry on `passwordRequired` (a rollback needs a
// password confirmed in the last 5 minutes), and the sign-in form on `locked`; other refusals
// are shown as the shell words them.
import { ControllerStore } from './controllerStore';
import { BridgeRefusal, type DesktopBridge, type RecoveryStatus, type RetainedBuild, type RollbackInfo } from '../../transport/desktop';
import type { AdminController, AdminState, Notice } from './adminController';
import { abilities, describeFailure } from './adminModel';

export type RecoveryBridge = Pick<DesktopBridge, 'recoveryStatus' | 'recoveryRollback'>;
export type RecoveryHost = Pick<AdminController, 'runPrivileged' | 'getState'>;

export interface RecoveryState {
  /** null until the first read is in. */
  status: RecoveryStatus | null;
  loadError: string | null;
  /** The build whose rollback waits for the confirmation. */
  confirming: RetainedBuild | null;
  /** The rollback the launcher was asked for: the app is about to restart into it. */
  restarting: RollbackInfo | null;
  message: Notice | null;
}

const INITIAL: RecoveryState = { status: null, loadError: null, confirming: null, restarting: null, message: null };

/** The Recovery section shows while the Owner is signed in on the server PC. */
export function showsRecovery(admin: Pick<AdminState, 'phase' | 'session'>): boolean {
  return admin.phase === 'session' && abilities(admin.session).manageRecovery;
}

/** Why a retained build cannot be rolled back to, or null when it can. */
export function rollbackBlocked(status: RecoveryStatus, build: RetainedBuild): string | null {
  if (build.rollback === 'data_epoch_mismatch') return 'Cannot read today’s data format';
  if (build.rollback === 'marker_unusable') return 'Its files cannot be proved';
  if (build.rollback !== 'available') return 'Running';
  if (status.candidatePending) return 'An update is being installed';
  if (status.rollbackRequested) return 'A rollback is waiting for the restart';
  return null;
}

export class RecoveryController extends ControllerStore<RecoveryState> {
  constructor(
    private readonly bridge: RecoveryBridge,
    private readonly host: RecoveryHost,
  ) {
    super(INITIAL);
    this.askRollback = this.askRollback.bind(this);
    this.cancelRollback = this.cancelRollback.bind(this);
    this.confirmRollback = this.confirmRollback.bind(this);
  }

  /** Reads the retained builds; resolves when the answer is in. */
  start(): Promise<void> {
    this.stopped = false;
    return this.load();
  }

  stop(): void {
    this.stopped = true;
    this.state = INITIAL;
  }

  private async load(): Promise<void> {
    try {
      this.set({ status: await this.bridge.recoveryStatus(), loadError: null });
    } catch (e) {
      this.set({ loadError: `The retained builds could not be read: ${describeFailure(e)}` });
    }
  }

  private busy(): boolean {
    return this.stopped || this.state.restarting !== null || this.host.getState().busy;
  }

  /** "Roll back" on `build`: asks for the confirmation first (only for a build that allows it). */
  askRollback(build: RetainedBuild): void {
    const status = this.state.status;
    if (this.busy() || !status || rollbackBlocked(status, build) !== null) return;
    this.set({ confirming: build, message: null });
  }

  cancelRollback(): void {
    this.set({ confirming: null });
  }

  /** The confirmation's OK: asks the launcher for the rollback (the app then restarts). */
  async confirmRollback(): Promise<void> {
    const build = this.state.confirming;
    if (!build || this.busy()) return;
    this.set({ confirming: null });
    await this.host.runPrivileged(
      () => this.bridge.recoveryRollback(build.build),
      (info) => {
        const version = info.version || build.version;
        this.set({ restarting: info, message: { text: `Relay is restarting into v${version}…`, error: false } });
      },
      (e) => {
        // The shell's refusals of a rollback are whole sentences meant for the Owner.
        const plain = e instanceof BridgeRefusal && (e.code === 'invalid' || e.code === 'unavailable') && e.message.trim();
        this.set({ message: { text: `The rollback was not started: ${plain || describeFailure(e)}`, error: true } });
        void this.load();
      },
    );
  }
}
