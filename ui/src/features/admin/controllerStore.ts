// The observable state every Administration controller keeps (accounts, logos, Dynatrace, Wiki):
// one immutable state object, the listeners `useSyncExternalStore` subscribes, and `set`, which
// merges a patch and notifies, and does nothing once the controller is stopped (so an answer
// arriving after the screen closed changes nothing). It holds no rule of any section.

export abstract class ControllerStore<S> {
  protected state: S;
  protected stopped = true;
  private readonly listeners = new Set<() => void>();

  protected constructor(initial: S) {
    this.state = initial;
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };

  readonly getState = (): S => this.state;

  protected set(patch: Partial<S>): void {
    if (this.stopped) return;
    this.state = { ...this.state, ...patch };
    for (const l of this.listeners) l();
  }
}
