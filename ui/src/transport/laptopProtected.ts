// A paired laptop's protected session (surface 'laptop'): the Administration screen's
// ProtectedSession over the client-mode desktop bridge's laptop_* commands. The shell holds the
// device key and signs every request; this renderer never sees a key, token or proof, and a
// password only ever goes into one invoke's arguments (nothing here keeps it). Sign-in is always
// as the paired account: a different typed username is refused here, before any call. Wiki PDFs
// are uploaded through `laptop_wiki_upload` (the shell's chooser; the shell signs the batch and
// every chunk as this laptop). A `locked` refusal saying the pairing was revoked re-reads the
// status, so whoever listens (`onStatus`) shows the revoked state.
import { BridgeRefusal, type DesktopBridge } from './desktop';
import { adminSnapshot, type AdminCommandName, type AdminSnapshot, type AdminStatus, type WikiUploadEvent, type WikiUploadSummary } from './desktopAdmin';
import { saysRevoked, type LaptopStatus } from './desktopLaptop';
import type { ProtectedSession } from './protectedSession';

/** The bridge methods this session uses (the DesktopBridge in the app, a fake in tests). */
export type LaptopBridge = Pick<
  DesktopBridge,
  'laptopStatus' | 'laptopPair' | 'laptopSignIn' | 'laptopConfirmPassword' | 'laptopLock' | 'laptopCommand' | 'laptopForget' | 'laptopWikiUpload'
>;

/** The laptop's status as the admin status: available only while paired, a session when signed in. */
export function adminStatusOf(status: LaptopStatus): AdminStatus {
  const available = status.available && status.pairing === 'paired';
  return { available, session: available ? status.session : null };
}

export class LaptopProtectedSession implements ProtectedSession {
  readonly surface = 'laptop' as const;
  private last: LaptopStatus | null = null;
  private readonly listeners = new Set<(status: LaptopStatus) => void>();

  constructor(private readonly bridge: LaptopBridge) {}

  /** Calls `listener` with every status this session reads or is answered. */
  onStatus(listener: (status: LaptopStatus) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** The last status read, if any. */
  current(): LaptopStatus | null {
    return this.last;
  }

  private seen(status: LaptopStatus): LaptopStatus {
    this.last = status;
    for (const l of [...this.listeners]) l(status);
    return status;
  }

  /** One bridge call; a revoked pairing's `locked` refusal re-reads the status, then rejects. */
  private async guard<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (e) {
      if (e instanceof BridgeRefusal && e.code === 'locked' && saysRevoked(e.message)) {
        await this.status().catch(() => undefined);
      }
      throw e;
    }
  }

  private async answer(op: () => Promise<LaptopStatus>): Promise<LaptopStatus> {
    return this.seen(await this.guard(op));
  }

  /** `laptop_status`. */
  status(): Promise<LaptopStatus> {
    return this.bridge.laptopStatus().then((s) => this.seen(s));
  }

  /** `laptop_pair` with the code as typed (`XXXX-XXXX` or 8 characters) and the label. */
  pair(username: string, code: string, label: string): Promise<LaptopStatus> {
    return this.answer(() => this.bridge.laptopPair(username, code, label));
  }

  /** `laptop_forget`: the pairing and its key are dropped ('unpaired'). */
  forget(): Promise<LaptopStatus> {
    return this.answer(() => this.bridge.laptopForget());
  }

  async adminStatus(): Promise<AdminStatus> {
    return adminStatusOf(await this.status());
  }

  /** Signs in as the paired account; another username is refused without a call. */
  async adminSignIn(username: string, password: string): Promise<AdminStatus> {
    const status = this.last ?? (await this.status());
    const paired = status.pairing === 'paired' ? status.device?.username : undefined;
    if (!status.available || !paired) throw new BridgeRefusal('This laptop is not paired.', 'unavailable');
    if (username.trim().toLowerCase() !== paired.toLowerCase()) throw new BridgeRefusal(`This laptop is paired for ${paired}.`, 'invalid');
    return adminStatusOf(await this.answer(() => this.bridge.laptopSignIn(password)));
  }

  async adminConfirmPassword(password: string): Promise<AdminStatus> {
    return adminStatusOf(await this.answer(() => this.bridge.laptopConfirmPassword(password)));
  }

  async adminLock(): Promise<AdminStatus> {
    return adminStatusOf(await this.answer(() => this.bridge.laptopLock()));
  }

  adminCommand(command: AdminCommandName, payload: Record<string, unknown>, expectedRevision: number | null = null): Promise<unknown> {
    return this.guard(() => this.bridge.laptopCommand(command, payload, expectedRevision));
  }

  async adminSnapshot(): Promise<AdminSnapshot> {
    return adminSnapshot(await this.adminCommand('admin.snapshot', {}, null));
  }

  /** `laptop_wiki_upload`: the shell's chooser, then the chosen PDFs signed and sent by this laptop. */
  adminWikiUpload(replacementDocumentId: string | null, onEvent: (event: WikiUploadEvent) => void): Promise<WikiUploadSummary> {
    return this.guard(() => this.bridge.laptopWikiUpload(replacementDocumentId, onEvent));
  }
}
