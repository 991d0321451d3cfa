// A request to show Settings → System health, from outside Settings (the status bar's degraded
// notice). The panel may not be mounted yet (Settings is loaded on first visit), so a request
// waits here until a panel takes it; a mounted panel is told at once.
type Listener = () => void;

let pending = false;
const listeners = new Set<Listener>();

/** Asks the System health panel to open (and scroll into view). */
export function requestSystemHealth(): void {
  if (listeners.size === 0) {
    pending = true;
    return;
  }
  pending = false;
  listeners.forEach((l) => l());
}

/** The panel subscribes while mounted; a request made before it mounted is delivered at once. */
export function onSystemHealthRequest(listener: Listener): () => void {
  listeners.add(listener);
  if (pending) {
    pending = false;
    listener();
  }
  return () => {
    listeners.delete(listener);
  };
}
