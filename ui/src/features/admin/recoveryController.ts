// Administration screen, the Recovery section's flow (no React; the Owner on the server PC): the
// recovery launcher's retained builds read on start (`recovery_status`), "Roll back" on a
// retained build that can read today's data (after a confirmation, `recovery_rollback` with that
// build id only), then the notice that Relay restarts into it (the app exits and the launcher
// switches); "Repair" on any build whose record is intact (after a confirmation,
// `recovery_repair`), with the download's bytes read every second while it runs, then the
// outcome and the list read again. The call runs through the Administration session (`AdminController.runPrivileged`):
// its busy flag, the password prompt and one retry on `passwordRequired` (a rollback needs a
// password confirmed in the last 5 minutes), and the sign-in form on `locked`; other refusals
// are shown as the shell words them.
import { ControllerStore } from './controllerStore';
import { BridgeRefusal, type DesktopBridge, type RecoveryStatus, type RetainedBuild, type RollbackInfo } from '../../transport/desktop';

/** How often the list (and a repair's bytes) is read while a repair runs. */
export const REPAIR_POLL_MS = 1000;
import type { AdminController, AdminState, Notice } from './adminController';
import { abilities, describeFailure } from './adminModel';

export type RecoveryBridge = Pick<DesktopBridge, 'recoveryStatus' | 'recoveryRollback' | 'recoveryRepair'>;
export type RecoveryHost = Pick<AdminController, 'runPrivileged' | 'getState'>;

export interface RecoveryState {
  /** null until the first read is in. */
  status: RecoveryStatus | null;
  loadError: string | null;
  /** The build whose rollback waits for the confirmation. */
  confirming: RetainedBuild | null;
  /** The build whose repair waits for the confirmation. */
  confirmingRepair: RetainedBuild | null;
  /** The build being repaired (its bytes are in `status.repair`). */
  repairing: RetainedBuild | null;
  /** The rollback the launcher was asked for: the app is about to restart into it. */
  restarting: RollbackInfo | null;
  message: Notice | null;
}

const INITIAL: RecoveryState = { status: null, loadError: null, confirming: null, confirmingRepair: null, repairing: null, restarting: null, message: null };

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

/** Whether "Repair" is offered for `build` (its record must be provable). */
export function repairable(status: RecoveryStatus, build: RetainedBuild): boolean {
  return status.managed && build.rollback !== 'marker_unusable' && build.version !== '' && !status.candidatePending;
}

export class RecoveryController extends ControllerStore<RecoveryState> {
  /** The list's re-read while a repair runs. */
  private poll: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly bridge: RecoveryBridge,
    private readonly host: RecoveryHost,
  ) {
    super(INITIAL);
    this.askRollback = this.askRollback.bind(this);
    this.cancelRollback = this.cancelRollback.bind(this);
    this.confirmRollback = this.confirmRollback.bind(this);
    this.askRepair = this.askRepair.bind(this);
    this.cancelRepair = this.cancelRepair.bind(this);
    this.confirmRepair = this.confirmRepair.bind(this);
  }

  /** Reads the retained builds; resolves when the answer is in. */
  start(): Promise<void> {
    this.stopped = false;
    return this.load();
  }

  stop(): void {
    if (this.poll) clearInterval(this.poll);
    this.poll = null;
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
    return this.stopped || this.state.restarting !== null || this.state.repairing !== null || this.host.getState().busy;
  }

  /** The shell's refusals of a rollback or repair are whole sentences meant for the Owner. */
  private failed(what: string): (e: unknown) => void {
    return (e) => {
      const plain = e instanceof BridgeRefusal && (e.code === 'invalid' || e.code === 'unavailable') && e.message.trim();
      this.set({ message: { text: `${what}: ${plain || describeFailure(e)}`, error: true } });
      void this.load();
    };
  }

  /** "Repair" on `build`: asks for the confirmation first. */
  askRepair(build: RetainedBuild): void {
    const status = this.state.status;
    if (this.busy() || !status || !repairable(status, build)) return;
    this.set({ confirmingRepair: build, message: null });
  }

  cancelRepair(): void {
    this.set({ confirmingRepair: null });
  }

  /** The confirmation's OK: repairs the build, reading its bytes every second meanwhile. */
  async confirmRepair(): Promise<void> {
    const build = this.state.confirmingRepair;
    if (!build || this.busy()) return;
    this.set({ confirmingRepair: null, repairing: build, message: null });
    this.poll = setInterval(() => void this.load(), REPAIR_POLL_MS);
    try {
      await this.host.runPrivileged(
        () => this.bridge.recoveryRepair(build.build),
        (info) => {
          const version = `v${info.version || build.version}`;
          const text = info.repaired ? `${version} was repaired from its release.` : `${version} is intact; nothing needed repairing.`;
          this.set({ message: { text, error: false } });
        },
        this.failed('The repair did not complete'),
      );
    } finally {
      if (this.poll) clearInterval(this.poll);
      this.poll = null;
      this.set({ repairing: null });
      await this.load();
    }
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
      this.failed('The rollback was not started'),
    );
  }
}
