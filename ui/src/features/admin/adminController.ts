// Administration screen, the flow (no React): the admin status and its 30-second poll, sign-in,
// lock, the open dialog, running an action through `admin_command` and re-reading the snapshot
// after it, the fresh-password prompt on `passwordRequired` (confirm, then retry the action once),
// and the sign-in form again on `locked` or an idle lock; `runPrivileged` gives another section
// (the Logos) the same busy flag, password prompt and lock handling for its own bridge calls.
// Passwords are read from their fields (SecretSlot) only when a form is submitted, and every field
// is cleared on submit, cancel, failure, lock and stop; none is ever kept in the state the screen
// renders. Away from the server PC (a session whose `surface` is not 'local') setting a password
// and creating a pairing code are not started: the notice says they are done on the server PC.
import { ControllerStore } from './controllerStore';
import { BridgeRefusal, type AdminSession, type AdminSnapshot, type AdminStatus } from '../../transport/desktop';
import type { ProtectedSession } from '../../transport/protectedSession';
import { commandFor, confirmationFor, noticeFor, passwordNotice, type AdminAction, type Confirmation } from './adminActions';
import { ADMIN_POLL_MS, LOCKED_MESSAGE, accountById, describeFailure, pairingExpiry } from './adminModel';
import { SecretSlot } from './secretSlot';

export type AdminBridge = Pick<ProtectedSession, 'adminStatus' | 'adminSignIn' | 'adminConfirmPassword' | 'adminLock' | 'adminCommand' | 'adminSnapshot'> &
  Partial<Pick<ProtectedSession, 'surface'>>;

/** The notice when a password or pairing code is asked for away from the server PC. */
export const SERVER_PC_ONLY_MESSAGE = 'Passwords and device pairing are set on the Relay server PC.';

/** Setting or resetting a password and creating a pairing code: the server PC's own session only. */
const serverPcOnly = (kind: string) => kind === 'setPassword' || kind === 'resetPassword' || kind === 'pair';

/** The dialog on screen, if any (one at a time). */
export type AdminDialog =
  | { kind: 'create' }
  | { kind: 'rename'; accountId: string }
  | { kind: 'setPassword'; accountId: string; error: string | null }
  | { kind: 'pair'; accountId: string }
  | { kind: 'confirm'; action: AdminAction; confirmation: Confirmation }
  /** A new pairing code, shown once. */
  | { kind: 'pairingCode'; accountId: string; label: string; code: string; expiresAtMs: number }
  /** `passwordRequired`: the signed-in user's password, then the action is retried once. */
  | { kind: 'freshPassword'; error: string | null };

export type FormDialog = Extract<AdminDialog, { kind: 'create' | 'rename' | 'setPassword' | 'pair' }>;

export interface Notice {
  text: string;
  error: boolean;
}

export interface AdminState {
  /** loading: first status not in yet; unavailable: not in server mode (or not now). */
  phase: 'loading' | 'unavailable' | 'signedOut' | 'session';
  session: AdminSession | null;
  snapshot: AdminSnapshot | null;
  /** A request runs: every action button is disabled. */
  busy: boolean;
  message: Notice | null;
  dialog: AdminDialog | null;
}

const INITIAL: AdminState = { phase: 'loading', session: null, snapshot: null, busy: false, message: null, dialog: null };

const refusal = (e: unknown, code: string) => e instanceof BridgeRefusal && e.code === code;

export class AdminController extends ControllerStore<AdminState> {
  /** The screen's password inputs bind to these (ref callbacks); nothing else holds their text. */
  readonly fields = { signIn: new SecretSlot(), fresh: new SecretSlot(), newPassword: new SecretSlot() };
  private timer: ReturnType<typeof setInterval> | null = null;
  /** Bumped by every call that changes the session, so an older poll answer is not applied. */
  private epoch = 0;
  /** The action that answered `passwordRequired`, retried once after the password is confirmed. */
  private pending: (() => Promise<void>) | null = null;

  constructor(
    private readonly bridge: AdminBridge,
    private readonly pollMs = ADMIN_POLL_MS,
    private readonly now: () => number = () => Date.now(),
  ) {
    super(INITIAL);
    // The screen passes these as event handlers.
    this.signIn = this.signIn.bind(this);
    this.lock = this.lock.bind(this);
    this.open = this.open.bind(this);
    this.request = this.request.bind(this);
    this.confirm = this.confirm.bind(this);
    this.cancelDialog = this.cancelDialog.bind(this);
    this.submitNewPassword = this.submitNewPassword.bind(this);
    this.submitFreshPassword = this.submitFreshPassword.bind(this);
  }

  /** Reads the status and polls it every 30 s until `stop`; resolves when the first read is in. */
  start(): Promise<void> {
    this.stopped = false;
    if (this.timer) clearInterval(this.timer);
    this.timer = setInterval(() => void this.poll(), this.pollMs);
    return this.poll();
  }

  /** The screen closed: no more polling; fields cleared; snapshot, pairing code and any pending
   * retry dropped. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.clearSecrets();
    this.stopped = true;
    this.state = INITIAL;
  }

  private clearSecrets(): void {
    this.fields.signIn.clear();
    this.fields.fresh.clear();
    this.fields.newPassword.clear();
    this.pending = null;
  }

  /** Back to the sign-in form with the locked message; everything of the session is dropped. */
  private toLocked(): void {
    this.clearSecrets();
    this.set({ phase: 'signedOut', session: null, snapshot: null, dialog: null, message: { text: LOCKED_MESSAGE, error: true } });
  }

  private applyStatus(status: AdminStatus): boolean {
    if (!status.available) {
      this.clearSecrets();
      this.set({ phase: 'unavailable', session: null, snapshot: null, dialog: null });
      return false;
    }
    if (!status.session) {
      if (this.state.phase === 'session') this.toLocked();
      else this.set({ phase: 'signedOut', session: null });
      return false;
    }
    this.set({ phase: 'session', session: status.session });
    return true;
  }

  /** One status poll (skipped while a request runs); a session that appeared loads the snapshot. */
  async poll(): Promise<void> {
    if (this.state.busy) return;
    const epoch = this.epoch;
    const wasIn = this.state.phase === 'session';
    let status: AdminStatus;
    try {
      status = await this.bridge.adminStatus();
    } catch (e) {
      if (this.state.phase === 'loading') this.set({ phase: 'unavailable', message: { text: describeFailure(e), error: true } });
      return;
    }
    if (epoch !== this.epoch || this.stopped) return;
    if (this.applyStatus(status) && !wasIn) await this.reload();
  }

  /** Re-reads the snapshot (and the status, for the new lock time). */
  private async reload(): Promise<void> {
    try {
      // A Publisher session manages only the Wiki: it has no administration snapshot to read.
      const publisher = this.state.session?.role === 'publisher';
      const [snapshot, status] = await Promise.all([publisher ? Promise.resolve(null) : this.bridge.adminSnapshot(), this.bridge.adminStatus()]);
      this.set({ snapshot });
      this.applyStatus(status);
    } catch (e) {
      this.fail(e);
    }
  }

  private fail(e: unknown, secrets: readonly string[] = []): void {
    if (refusal(e, 'locked')) this.toLocked();
    else this.set({ message: { text: describeFailure(e, secrets), error: true } });
  }

  /** Signs in with `username` and the password typed in the sign-in field (cleared at once). */
  async signIn(username: string): Promise<void> {
    const password = this.fields.signIn.take();
    if (this.state.busy) return;
    const user = username.trim();
    if (!user || !password) {
      this.set({ message: { text: 'Enter your username and password.', error: true } });
      return;
    }
    this.epoch++;
    this.set({ busy: true, message: null });
    try {
      const status = await this.bridge.adminSignIn(user, password);
      if (this.applyStatus(status)) await this.reload();
      else if (status.available) this.set({ message: { text: 'The server did not open a session. Sign in again.', error: true } });
    } catch (e) {
      this.fail(e, [password]);
    } finally {
      this.set({ busy: false });
    }
  }

  /** Locks the session now (the "Lock" button). */
  async lock(): Promise<void> {
    this.clearSecrets();
    if (this.state.busy) return;
    this.epoch++;
    this.set({ busy: true, dialog: null, message: null });
    try {
      const status = await this.bridge.adminLock();
      this.set({ phase: status.available ? 'signedOut' : 'unavailable', session: null, snapshot: null, message: { text: 'Administration locked.', error: false } });
    } catch (e) {
      if (refusal(e, 'locked')) this.set({ phase: 'signedOut', session: null, snapshot: null, message: { text: 'Administration locked.', error: false } });
      else this.fail(e);
    } finally {
      this.set({ busy: false });
    }
  }

  /** Opens a form (create, rename, set password, pair). */
  open(dialog: FormDialog): void {
    if (this.state.busy || this.state.phase !== 'session') return;
    if (this.awayFromServerPc(dialog.kind)) return;
    this.fields.newPassword.clear();
    this.set({ dialog, message: null });
  }

  /** Closes the dialog; a cancelled password prompt drops the action waiting for it. */
  cancelDialog(): void {
    this.fields.fresh.clear();
    this.fields.newPassword.clear();
    if (this.state.dialog?.kind === 'freshPassword') {
      this.pending = null;
      this.set({ dialog: null, message: { text: 'Cancelled; nothing was changed.', error: false } });
    } else {
      this.set({ dialog: null });
    }
  }

  /** Asks for `action`: a destructive one opens its confirmation first. */
  request(action: AdminAction): Promise<void> {
    if (this.state.busy || this.state.phase !== 'session') return Promise.resolve();
    if (this.awayFromServerPc(action.kind)) return Promise.resolve();
    const confirmation = confirmationFor(action, this.state.snapshot);
    if (!confirmation) return this.run(action);
    this.set({ dialog: { kind: 'confirm', action, confirmation }, message: null });
    return Promise.resolve();
  }

  /** The confirmation's OK: runs its action (a password reset goes on to the password form). */
  confirm(): Promise<void> {
    const d = this.state.dialog;
    if (d?.kind !== 'confirm' || this.state.busy) return Promise.resolve();
    if (d.action.kind !== 'resetPassword') return this.run(d.action);
    this.fields.newPassword.clear();
    this.set({ dialog: { kind: 'setPassword', accountId: d.action.accountId, error: null } });
    return Promise.resolve();
  }

  /** True (and the notice shown) for a password or pairing action away from the server PC. */
  private awayFromServerPc(kind: string): boolean {
    if ((this.bridge.surface ?? 'local') === 'local' || !serverPcOnly(kind)) return false;
    this.set({ dialog: null, message: { text: SERVER_PC_ONLY_MESSAGE, error: true } });
    return true;
  }

  private run(action: AdminAction): Promise<void> {
    if (action.kind === 'resetPassword') {
      this.open({ kind: 'setPassword', accountId: action.accountId, error: null });
      return Promise.resolve();
    }
    const snapshot = this.state.snapshot;
    const { command, payload, expectedRevision } = commandFor(action, snapshot);
    this.set({ dialog: null });
    return this.perform(
      () => this.bridge.adminCommand(command, payload, expectedRevision),
      (result) => {
        this.set({ message: noticeFor(action, result, snapshot, (this.bridge.surface ?? 'local') === 'local') });
        if (action.kind === 'pair') {
          const r = (result ?? {}) as { code?: unknown; expiresAtMs?: unknown };
          const now = this.now();
          this.set({
            dialog: {
              kind: 'pairingCode',
              accountId: action.accountId,
              label: action.label,
              code: typeof r.code === 'string' ? r.code : '',
              expiresAtMs: pairingExpiry(r.expiresAtMs, now),
            },
          });
        }
      },
    );
  }

  /** The set-password form's submit: reads the new password from its field (cleared at once). */
  async submitNewPassword(): Promise<void> {
    const password = this.fields.newPassword.take();
    const d = this.state.dialog;
    if (d?.kind !== 'setPassword' || this.state.busy) return;
    if (!password) {
      this.set({ dialog: { ...d, error: 'Enter the new password.' } });
      return;
    }
    const account = accountById(this.state.snapshot, d.accountId);
    this.set({ dialog: null });
    await this.perform(
      () => this.bridge.adminCommand('accounts.setPassword', { accountId: d.accountId, password }, null),
      (result) => this.set({ message: { text: passwordNotice(account, result), error: false } }),
      [password],
    );
  }

  /** The password prompt's submit: confirms the password (field cleared at once), then retries
   * the waiting action once. A wrong password keeps the prompt open with the server's message. */
  async submitFreshPassword(): Promise<void> {
    const password = this.fields.fresh.take();
    const d = this.state.dialog;
    if (d?.kind !== 'freshPassword' || this.state.busy) return;
    if (!password) {
      this.set({ dialog: { ...d, error: 'Enter your password.' } });
      return;
    }
    this.epoch++;
    this.set({ busy: true, dialog: { ...d, error: null } });
    let retry: (() => Promise<void>) | null = null;
    try {
      const status = await this.bridge.adminConfirmPassword(password);
      if (!status.session) {
        this.toLocked();
        return;
      }
      retry = this.pending;
      this.pending = null;
      this.set({ session: status.session, dialog: null });
    } catch (e) {
      if (refusal(e, 'rejected') || refusal(e, 'invalid')) {
        this.set({ dialog: { kind: 'freshPassword', error: describeFailure(e, [password]) } });
      } else {
        this.pending = null;
        this.set({ dialog: null });
        this.fail(e, [password]);
      }
    } finally {
      this.set({ busy: false });
    }
    if (retry) await retry();
  }

  /**
   * Runs one command; on success `done` sets the notice and the snapshot is re-read; a failure is
   * shown (with `secrets` masked) — a `rejected` one with the current snapshot.
   */
  private perform(op: () => Promise<unknown>, done: (result: unknown) => void, secrets: readonly string[] = []): Promise<void> {
    return this.guarded(
      op,
      async (result) => {
        done(result);
        await this.reload();
      },
      async (e) => {
        this.fail(e, secrets);
        // A refusal may come from a changed state (e.g. a stale authority revision): show the current one.
        if (refusal(e, 'rejected')) await this.reload();
      },
    );
  }

  /**
   * Runs a privileged bridge call of another section of this screen (the Logos) in this session:
   * the same busy flag, password prompt and retry, and sign-in form on `locked` as the actions.
   * On success `done` gets the result (then the lock time is re-read); any other failure goes to
   * `failed`, for the section to show. Skipped while a request runs or without a session.
   */
  runPrivileged<T>(op: () => Promise<T>, done: (result: T) => void | Promise<void>, failed: (e: unknown) => void): Promise<void> {
    if (this.state.phase !== 'session') return Promise.resolve();
    return this.guarded(
      op,
      async (result) => {
        await done(result);
        try {
          this.applyStatus(await this.bridge.adminStatus());
        } catch {
          // The next poll reads it.
        }
      },
      async (e) => {
        if (refusal(e, 'locked')) this.toLocked();
        else failed(e);
      },
    );
  }

  /**
   * The busy flag around one call. The first `passwordRequired` opens the password prompt and
   * keeps the call for one retry; anything else goes to `failed`.
   */
  private async guarded<T>(op: () => Promise<T>, done: (result: T) => Promise<void>, failed: (e: unknown) => Promise<void>, retried = false): Promise<void> {
    if (this.state.busy) return;
    this.epoch++;
    this.set({ busy: true, message: null });
    try {
      const result = await op();
      await done(result);
    } catch (e) {
      if (!retried && refusal(e, 'passwordRequired')) {
        this.pending = () => this.guarded(op, done, failed, true);
        this.fields.fresh.clear();
        this.set({ dialog: { kind: 'freshPassword', error: null } });
      } else {
        await failed(e);
      }
    } finally {
      this.set({ busy: false });
    }
  }
}
