// The external-store half shared by the app-level feeds (Status, Radar): one immutable state,
// listeners, `subscribe`/`getSnapshot` for useSyncExternalStore, and `set` (patch + notify), plus
// the load sequencing that drops answers overtaken by a newer load or a stop.
export class FeedStore<S extends object> {
  protected state: S;
  private readonly listeners = new Set<() => void>();
  private loadSeq = 0;

  constructor(initial: S) {
    this.state = initial;
  }

  getSnapshot = (): S => this.state;

  subscribe = (l: () => void): (() => void) => {
    this.listeners.add(l);
    return () => {
      this.listeners.delete(l);
    };
  };

  protected set(patch: Partial<S>): void {
    this.state = { ...this.state, ...patch };
    for (const l of [...this.listeners]) l();
  }

  /** Start a load; the returned check is true while no newer load (or `dropLoads`) came after it. */
  protected beginLoad(): () => boolean {
    const seq = ++this.loadSeq;
    return () => seq === this.loadSeq;
  }

  /** Answers of loads already in flight are dropped. */
  protected dropLoads(): void {
    this.loadSeq++;
  }
}
