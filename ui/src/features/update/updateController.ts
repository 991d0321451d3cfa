// The updater's flow in the renderer (no React): the state read from `update_status` when the
// shell starts, then every minute (the updater checks on its own every 15 minutes), and every
// half second while a download or preparation runs, so the progress shows the bytes received.
// Each button is one command and only that one: Check, Download, Cancel, Prepare and Restart
// never start another step. One command runs at a time; a refusal is shown in plain words.
// Restart shows what the shell verified and whether the Relay launcher took it (the app then
// exits and the launcher starts the new version; no further command is sent meanwhile) or this
// installation is not managed by the launcher. The header action and Settings → About share one controller (UpdateContext).
import { ControllerStore } from '../admin/controllerStore';
import type { DesktopBridge, RestartInfo, UpdateSnapshot } from '../../transport/desktop';
import { UPDATE_FAST_POLL_MS, UPDATE_SLOW_POLL_MS, isRunning, refusalText, restartText, type UpdateAction } from './updateModel';

export type UpdateBridge = Pick<DesktopBridge, 'updateStatus' | 'updateCheck' | 'updateDownload' | 'updateCancel' | 'updatePrepare' | 'updateRestart'>;

export interface UpdateViewState {
  snapshot: UpdateSnapshot | null;
  /** Why the updater cannot be asked (no updater on this installation, or it stopped). */
  unavailable: string | null;
  busy: UpdateAction | null;
  message: { text: string; error: boolean } | null;
  /** Whether a check from this window completed (idle then means "newest version"). */
  checked: boolean;
  restart: RestartInfo | null;
}

export interface Timers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const INITIAL: UpdateViewState = { snapshot: null, unavailable: null, busy: null, message: null, checked: false, restart: null };

const BROWSER_TIMERS: Timers = {
  setTimeout: (run, ms) => globalThis.setTimeout(run, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};

export class UpdateController extends ControllerStore<UpdateViewState> {
  private timer: unknown = null;

  constructor(
    private readonly bridge: UpdateBridge,
    private readonly timers: Timers = BROWSER_TIMERS,
  ) {
    super(INITIAL);
    this.check = this.check.bind(this);
    this.download = this.download.bind(this);
    this.cancel = this.cancel.bind(this);
    this.prepare = this.prepare.bind(this);
    this.restart = this.restart.bind(this);
  }

  start(): Promise<void> {
    this.stopped = false;
    return this.refresh();
  }

  stop(): void {
    this.unschedule();
    this.stopped = true;
    this.state = INITIAL;
  }

  /** Asks for the state now and schedules the next ask. */
  async refresh(): Promise<void> {
    if (this.stopped) return;
    this.unschedule();
    try {
      this.show(await this.bridge.updateStatus());
    } catch (e) {
      this.set({ unavailable: refusalText(e) });
    }
    this.schedule();
  }

  check(): Promise<void> {
    return this.run('check', async () => {
      this.show(await this.bridge.updateCheck());
      this.set({ checked: true });
    });
  }

  download(): Promise<void> {
    return this.run('download', async () => this.show(await this.bridge.updateDownload()));
  }

  cancel(): Promise<void> {
    return this.run('cancel', async () => this.show(await this.bridge.updateCancel()));
  }

  prepare(): Promise<void> {
    return this.run('prepare', async () => this.show(await this.bridge.updatePrepare()));
  }

  restart(): Promise<void> {
    return this.run('restart', async () => {
      const info = await this.bridge.updateRestart();
      this.set({ restart: info, message: { text: restartText(info), error: false } });
    });
  }

  private show(snapshot: UpdateSnapshot): void {
    const left = this.state.snapshot?.phase === 'prepared' && snapshot.phase !== 'prepared';
    this.set({ snapshot, unavailable: null, ...(left ? { restart: null } : {}) });
  }

  /** Runs one command (none while another runs), then asks for the state again. */
  private async run(action: UpdateAction, body: () => Promise<void>): Promise<void> {
    if (this.stopped || this.state.busy !== null || this.state.restart?.handedOff) return;
    this.set({ busy: action, message: null });
    try {
      await body();
    } catch (e) {
      this.set({ message: { text: refusalText(e), error: true } });
    } finally {
      this.set({ busy: null });
    }
    await this.refresh();
  }

  private schedule(): void {
    if (this.stopped) return;
    const ms = isRunning(this.state.snapshot) ? UPDATE_FAST_POLL_MS : UPDATE_SLOW_POLL_MS;
    this.timer = this.timers.setTimeout(() => {
      this.timer = null;
      void this.refresh();
    }, ms);
  }

  private unschedule(): void {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
  }
}
