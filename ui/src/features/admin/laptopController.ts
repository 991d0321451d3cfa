// Administration on a client-mode desktop (the 'laptop' surface), the pairing flow (no React): the
// laptop's pairing status (kept current by every status LaptopProtectedSession reads, the admin
// screen's poll and a revoked pairing's re-read included), "Pair this laptop" (username, the
// 8-character code shown on the server PC as `XXXX-XXXX` or without the dash, a label defaulting
// to "NOC laptop"), and "Forget pairing" after a confirmation. The code is only passed into the
// pair call; nothing here keeps it, and a failure's text never repeats it.
import { BridgeRefusal, saysRevoked, type LaptopStatus } from '../../transport/desktop';
import type { LaptopProtectedSession } from '../../transport/laptopProtected';
import type { Notice } from './adminController';
import { describeFailure } from './adminModel';
import { ControllerStore } from './controllerStore';

/** The label a new pairing gets when none is typed. */
export const DEFAULT_LAPTOP_LABEL = 'NOC laptop';

export const CODE_HINT = 'Enter the 8-character code shown on the server PC (XXXX-XXXX).';

/** `XXXX-XXXX` or 8 letters and digits (any case, spaces ignored) → the 8 characters, uppercased;
 * null for anything else. */
export function normalizePairingCode(raw: string): string | null {
  const code = raw.replace(/\s+/g, '').toUpperCase();
  return /^[A-Z0-9]{4}-?[A-Z0-9]{4}$/.test(code) ? code.replace('-', '') : null;
}

export interface LaptopState {
  /** null until the first status is in. */
  status: LaptopStatus | null;
  loadError: string | null;
  busy: boolean;
  message: Notice | null;
  /** "Forget pairing" asked for; its confirmation shows. */
  confirmingForget: boolean;
}

const INITIAL: LaptopState = { status: null, loadError: null, busy: false, message: null, confirmingForget: false };

/** A refusal's sentence: a revoked pairing's own message, else the screen's usual wording. */
function failureText(e: unknown, secrets: readonly string[]): string {
  return e instanceof BridgeRefusal && saysRevoked(e.message) ? e.message : describeFailure(e, secrets);
}

export class LaptopController extends ControllerStore<LaptopState> {
  private off: (() => void) | null = null;

  constructor(readonly session: LaptopProtectedSession) {
    super(INITIAL);
    this.pair = this.pair.bind(this);
    this.askForget = this.askForget.bind(this);
    this.cancelForget = this.cancelForget.bind(this);
    this.forget = this.forget.bind(this);
  }

  /** Follows the session's statuses and reads the first one. */
  start(): Promise<void> {
    this.stopped = false;
    this.off?.();
    this.off = this.session.onStatus((status) =>
      this.set(status.pairing === 'paired' ? { status, loadError: null } : { status, loadError: null, confirmingForget: false }),
    );
    return this.refresh();
  }

  stop(): void {
    this.off?.();
    this.off = null;
    this.stopped = true;
    this.state = INITIAL;
  }

  async refresh(): Promise<void> {
    try {
      await this.session.status();
    } catch (e) {
      this.set({ loadError: describeFailure(e) });
    }
  }

  /** "Pair this laptop": checks the fields, then redeems the code. */
  async pair(username: string, code: string, label: string): Promise<void> {
    if (this.state.busy) return;
    const user = username.trim();
    const normalized = normalizePairingCode(code);
    if (!user) {
      this.set({ message: { text: 'Enter the username of the account this laptop is for.', error: true } });
      return;
    }
    if (!normalized) {
      this.set({ message: { text: CODE_HINT, error: true } });
      return;
    }
    this.set({ busy: true, message: null });
    try {
      const status = await this.session.pair(user, normalized, label.trim() || DEFAULT_LAPTOP_LABEL);
      this.set({
        message: status.pairing === 'paired'
          ? { text: `This laptop is paired as ${status.device?.username ?? user}. Sign in below.`, error: false }
          : { text: 'This laptop was not paired. Check the code and try again.', error: true },
      });
    } catch (e) {
      this.set({ message: { text: failureText(e, [code, normalized]), error: true } });
    } finally {
      this.set({ busy: false });
    }
  }

  askForget(): void {
    if (this.state.busy) return;
    this.set({ confirmingForget: true, message: null });
  }

  cancelForget(): void {
    this.set({ confirmingForget: false });
  }

  /** The confirmation's "Forget pairing": drops the pairing and its key on this laptop. */
  async forget(): Promise<void> {
    if (this.state.busy || !this.state.confirmingForget) return;
    this.set({ busy: true, confirmingForget: false, message: null });
    try {
      await this.session.forget();
      this.set({ message: { text: 'This laptop forgot its pairing. Pair it again to use Administration here.', error: false } });
    } catch (e) {
      this.set({ message: { text: failureText(e, []), error: true } });
    } finally {
      this.set({ busy: false });
    }
  }
}
