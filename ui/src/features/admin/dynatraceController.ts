// Administration screen, the Dynatrace section's flow (no React): the configuration read with
// `dynatrace.status` when the section shows; Save sends `dynatrace.configure` with the revision
// it was read at; the platform token is read once from its password field (SecretSlot, never in
// state, never shown back) and sent with `dynatrace.setToken`; Remove token asks first, then
// `dynatrace.removeToken`; Test connection runs `dynatrace.testConnection` and shows its message.
// Every change answers the new status (its revision is used next). A stale revision (someone
// saved meanwhile) says "reload and retry" and reloads the current settings. The calls run
// through the Administration session (`AdminController.runPrivileged`): its busy flag, password
// prompt and retry, and the sign-in form on `locked`.
import { ControllerStore } from './controllerStore';
import type { ProtectedSession } from '../../transport/protectedSession';
import type { AdminController, AdminState, Notice } from './adminController';
import { abilities } from './adminModel';
import {
  EMPTY_FORM,
  connectionTest,
  configurePayload,
  dynatraceFailure,
  dynatraceStatus,
  formFromStatus,
  isStale,
  type ConnectionTest,
  type DynatraceForm,
  type DynatraceStatus,
} from './dynatraceModel';
import { SecretSlot } from './secretSlot';

export type DynatraceBridge = Pick<ProtectedSession, 'adminCommand'>;
export type DynatraceHost = Pick<AdminController, 'runPrivileged' | 'getState'>;

export interface DynatraceState {
  phase: 'loading' | 'ready' | 'failed';
  status: DynatraceStatus | null;
  loadError: string | null;
  form: DynatraceForm;
  message: Notice | null;
  test: ConnectionTest | null;
  /** Remove token waits for the confirmation. */
  confirmingRemove: boolean;
}

const INITIAL: DynatraceState = { phase: 'loading', status: null, loadError: null, form: EMPTY_FORM, message: null, test: null, confirmingRemove: false };

/** The Dynatrace section shows while an Owner or Administrator is signed in (not a Publisher). */
export function showsDynatrace(admin: Pick<AdminState, 'phase' | 'session'>): boolean {
  return admin.phase === 'session' && abilities(admin.session).manageDynatrace;
}

export class DynatraceController extends ControllerStore<DynatraceState> {
  private reads = 0;
  /** The platform token's password field. */
  readonly token = new SecretSlot();

  constructor(
    private readonly bridge: DynatraceBridge,
    private readonly host: DynatraceHost,
  ) {
    super(INITIAL);
    this.edit = this.edit.bind(this);
    this.save = this.save.bind(this);
    this.setToken = this.setToken.bind(this);
    this.askRemoveToken = this.askRemoveToken.bind(this);
    this.cancelRemoveToken = this.cancelRemoveToken.bind(this);
    this.confirmRemoveToken = this.confirmRemoveToken.bind(this);
    this.testConnection = this.testConnection.bind(this);
    this.reload = this.reload.bind(this);
  }

  start(): Promise<void> {
    this.stopped = false;
    return this.reload();
  }

  stop(): void {
    this.token.clear();
    this.reads++;
    this.stopped = true;
    this.state = INITIAL;
  }

  /** Reads the current configuration; the form is reset to it. */
  async reload(): Promise<void> {
    const read = ++this.reads;
    try {
      const status = dynatraceStatus(await this.bridge.adminCommand('dynatrace.status', {}, null));
      if (read !== this.reads || this.stopped) return;
      this.set({ phase: 'ready', status, form: formFromStatus(status), loadError: null });
    } catch (e) {
      if (read !== this.reads || this.stopped) return;
      this.set({ phase: this.state.status ? 'ready' : 'failed', loadError: `The Dynatrace settings could not be read: ${dynatraceFailure(e)}` });
    }
  }

  edit(patch: Partial<DynatraceForm>): void {
    this.set({ form: { ...this.state.form, ...patch } });
  }

  private busy(): boolean {
    return this.stopped || this.host.getState().busy || this.state.status === null;
  }

  /** A change answered: the new status (and its revision) and the notice. */
  private applied(raw: unknown, text: string, keepForm = false): void {
    const status = dynatraceStatus(raw);
    this.set({ status, form: keepForm ? this.state.form : formFromStatus(status), message: { text, error: false } });
  }

  private failed(e: unknown, secrets: string[] = []): void {
    this.set({ message: { text: dynatraceFailure(e, secrets), error: true } });
    if (isStale(e)) void this.reload();
  }

  /** Save: environment URL, alerting profiles, matcher, workflow id, at the revision read. */
  async save(): Promise<void> {
    if (this.busy()) return;
    const revision = this.state.status!.revision;
    const payload = configurePayload(this.state.form);
    this.set({ message: null, test: null });
    await this.host.runPrivileged(
      () => this.bridge.adminCommand('dynatrace.configure', payload, revision),
      (r) => this.applied(r, 'Dynatrace settings saved.'),
      (e) => this.failed(e),
    );
  }

  /** Sends the typed token (read once from its field, which is left blank). */
  async setToken(): Promise<void> {
    if (this.busy()) return;
    const token = this.token.take().trim();
    if (!token) {
      this.set({ message: { text: 'Enter the platform token first.', error: true } });
      return;
    }
    const revision = this.state.status!.revision;
    this.set({ message: null, test: null });
    await this.host.runPrivileged(
      () => this.bridge.adminCommand('dynatrace.setToken', { token }, revision),
      (r) => this.applied(r, 'Platform token saved.', true),
      (e) => this.failed(e, [token]),
    );
  }

  askRemoveToken(): void {
    if (this.busy()) return;
    this.set({ confirmingRemove: true, message: null });
  }

  cancelRemoveToken(): void {
    this.set({ confirmingRemove: false });
  }

  async confirmRemoveToken(): Promise<void> {
    if (!this.state.confirmingRemove || this.busy()) return;
    const revision = this.state.status!.revision;
    this.set({ confirmingRemove: false, test: null });
    await this.host.runPrivileged(
      () => this.bridge.adminCommand('dynatrace.removeToken', {}, revision),
      (r) => this.applied(r, 'Platform token removed. Dynatrace problems stop syncing until a new one is saved.', true),
      (e) => this.failed(e),
    );
  }

  async testConnection(): Promise<void> {
    if (this.busy()) return;
    this.set({ message: null, test: null });
    await this.host.runPrivileged(
      () => this.bridge.adminCommand('dynatrace.testConnection', {}, null),
      (r) => this.set({ test: connectionTest(r) }),
      (e) => this.failed(e),
    );
  }
}
