// Administration screen, password fields: an uncontrolled password input (its text lives in the
// DOM element only, never in React state) bound to a slot that reads it once on submit and clears
// it — on submit, and whenever the controller says so (cancel, failure, lock, unmount).

/** The part of an <input> a slot touches. */
export interface SecretInput {
  value: string;
}

export class SecretSlot {
  private input: SecretInput | null = null;

  /** The input's ref callback: attaches it; on detach (unmount) clears it first. */
  readonly ref = (el: SecretInput | null): void => {
    if (el === null) this.clear();
    this.input = el;
  };

  /** The typed text, read once: the input is blank afterwards. */
  take(): string {
    const v = this.input?.value ?? '';
    this.clear();
    return v;
  }

  clear(): void {
    if (this.input && this.input.value !== '') this.input.value = '';
  }
}
