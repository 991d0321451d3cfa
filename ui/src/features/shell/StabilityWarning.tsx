// Desktop only: polls the bridge's `stability_status` and, once the shell has raised a stability
// warning (repeated recovered failures inside its rolling window), shows a persistent notice in
// the status bar asking the operator to restart Relay when convenient.
import { useEffect, useState } from 'react';
import { DesktopBridge } from '../../transport/desktop';

export const STABILITY_POLL_MS = 15_000;

export function StabilityWarning({ w = globalThis, pollMs = STABILITY_POLL_MS }: { w?: unknown; pollMs?: number }) {
  const [warningAt, setWarningAt] = useState<number | null>(null);
  useEffect(() => {
    const bridge = DesktopBridge.of(w);
    if (!bridge) return;
    let live = true;
    const check = () =>
      void bridge
        .stability()
        .then((s) => live && s.warningAtMs !== null && setWarningAt(s.warningAtMs))
        .catch(() => {});
    check();
    const id = setInterval(check, pollMs);
    return () => {
      live = false;
      clearInterval(id);
    };
  }, [w, pollMs]);
  if (warningAt === null) return null;
  return (
    <span className="stability-warning" data-testid="stability-warning" role="alert" title={new Date(warningAt).toLocaleString()}>
      Relay recovered from repeated internal errors — restart it when convenient
    </span>
  );
}
