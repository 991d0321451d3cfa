// Administration screen, the Logos section's flow (no React): the current company and footer
// logos read over HTTP and shown from object URLs (each revoked when replaced and on stop),
// choosing an image (over 2 MiB refused before anything is sent; otherwise its bytes go base64 to
// `admin_set_logo`) and removing one (after a confirmation, `admin_remove_logo`), each followed
// by a notice and a fresh preview. The calls run through the Administration session
// (`AdminController.runPrivileged`): its busy flag, password prompt and retry, and the sign-in
// form on `locked`; the section shows its other refusals itself.
import { ControllerStore } from './controllerStore';
import type { DesktopBridge, LogoKind } from '../../transport/desktop';
import type { AdminController, AdminState, Notice } from './adminController';
import { abilities } from './adminModel';
import { LOGO_LABELS, LOGO_TOO_LARGE, MAX_LOGO_BYTES, base64Of, logoFailure, type LogoFile } from './logosModel';
import { logosChanged, type ObjectUrls } from '../../lib/logoChanges';

export type LogosBridge = Pick<DesktopBridge, 'adminSetLogo' | 'adminRemoveLogo'>;
export type LogosHost = Pick<AdminController, 'runPrivileged' | 'getState'>;

export interface LogoPreview {
  /** loading: not read yet; none: no logo set; set: `url` shows it; failed: `error` says why. */
  status: 'loading' | 'none' | 'set' | 'failed';
  url: string | null;
  error: string | null;
}

export interface LogosState {
  previews: Record<LogoKind, LogoPreview>;
  /** A chosen file is being read (the session's busy flag covers the bridge call). */
  reading: boolean;
  message: Notice | null;
  /** The logo whose removal waits for the confirmation. */
  removing: LogoKind | null;
}

const LOADING: LogoPreview = { status: 'loading', url: null, error: null };
const INITIAL: LogosState = { previews: { company: LOADING, footer: LOADING }, reading: false, message: null, removing: null };

/** The Logos section shows while an Owner or Administrator is signed in (not for a Publisher). */
export function showsLogos(admin: Pick<AdminState, 'phase' | 'session'>): boolean {
  return admin.phase === 'session' && abilities(admin.session).manageLogos;
}

export class LogosController extends ControllerStore<LogosState> {
  /** Bumped by every read of a logo (and by stop), so an older answer is not shown. */
  private readonly reads: Record<LogoKind, number> = { company: 0, footer: 0 };

  constructor(
    private readonly bridge: LogosBridge,
    private readonly host: LogosHost,
    private readonly fetchLogo: (kind: LogoKind) => Promise<Blob | null>,
    private readonly urls: ObjectUrls = URL,
  ) {
    super(INITIAL);
    this.choose = this.choose.bind(this);
    this.askRemove = this.askRemove.bind(this);
    this.confirmRemove = this.confirmRemove.bind(this);
    this.cancelRemove = this.cancelRemove.bind(this);
  }

  /** Reads both logos; resolves when both are in. */
  start(): Promise<void> {
    this.stopped = false;
    return Promise.all([this.load('company'), this.load('footer')]).then(() => undefined);
  }

  /** The section closed (or the session ended): every preview URL revoked, the state dropped. */
  stop(): void {
    for (const p of Object.values(this.state.previews)) if (p.url) this.urls.revokeObjectURL(p.url);
    this.reads.company++;
    this.reads.footer++;
    this.stopped = true;
    this.state = INITIAL;
  }

  private busy(): boolean {
    return this.stopped || this.state.reading || this.host.getState().busy;
  }

  private preview(kind: LogoKind, next: LogoPreview): void {
    const old = this.state.previews[kind].url;
    if (old && old !== next.url) this.urls.revokeObjectURL(old);
    this.set({ previews: { ...this.state.previews, [kind]: next } });
  }

  /** (Re-)reads one logo; the previous preview stays until the answer is in. */
  private async load(kind: LogoKind): Promise<void> {
    const read = ++this.reads[kind];
    let next: LogoPreview;
    try {
      const blob = await this.fetchLogo(kind);
      if (read !== this.reads[kind] || this.stopped) return;
      next = blob ? { status: 'set', url: this.urls.createObjectURL(blob), error: null } : { status: 'none', url: null, error: null };
    } catch (e) {
      if (read !== this.reads[kind] || this.stopped) return;
      next = { status: 'failed', url: null, error: `The current logo could not be read: ${e instanceof Error && e.message ? e.message : 'the request failed.'}` };
    }
    this.preview(kind, next);
  }

  private failed = (e: unknown): void => this.set({ message: { text: logoFailure(e), error: true } });

  /** A file chosen for `kind`: refused over 2 MiB with nothing sent, else stored and re-read. */
  async choose(kind: LogoKind, file: LogoFile): Promise<void> {
    if (this.busy()) return;
    if (file.size > MAX_LOGO_BYTES) {
      this.set({ message: { text: LOGO_TOO_LARGE, error: true } });
      return;
    }
    this.set({ reading: true, message: null });
    let imageBase64: string;
    try {
      imageBase64 = base64Of(new Uint8Array(await file.arrayBuffer()));
    } catch {
      this.set({ message: { text: 'The image file could not be read.', error: true } });
      return;
    } finally {
      this.set({ reading: false });
    }
    await this.host.runPrivileged(
      () => this.bridge.adminSetLogo(kind, imageBase64),
      async (r) => {
        this.set({ message: { text: `${LOGO_LABELS[kind]} saved (${r.width}×${r.height}).`, error: false } });
        logosChanged();
        await this.load(kind);
      },
      this.failed,
    );
  }

  /** "Remove": asks for the confirmation first. */
  askRemove(kind: LogoKind): void {
    if (this.busy()) return;
    this.set({ removing: kind, message: null });
  }

  cancelRemove(): void {
    this.set({ removing: null });
  }

  /** The confirmation's OK: removes the logo, then re-reads it. */
  async confirmRemove(): Promise<void> {
    const kind = this.state.removing;
    if (!kind || this.busy()) return;
    this.set({ removing: null });
    await this.host.runPrivileged(
      () => this.bridge.adminRemoveLogo(kind),
      async () => {
        this.set({ message: { text: `${LOGO_LABELS[kind]} removed.`, error: false } });
        logosChanged();
        await this.load(kind);
      },
      this.failed,
    );
  }
}
