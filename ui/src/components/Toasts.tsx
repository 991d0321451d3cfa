// Toasts: success / error / info / warning, each auto-closing 4 s after it shows. At most three
// show at once, through the priority queue of ./toastQueue: the newest action result replaces the
// oldest, an identical toast is counted on the one showing ("×2") and restarts its time, and
// Dynatrace problem toasts take precedence over service-status toasts (and are deduped by problem
// id). The stack lets clicks through to the rows under it (toasts hold no controls). The
// container is a polite live region that is always in the document (a region inserted with its
// text is not announced), so every toast is read out without interrupting; errors are role=alert
// (assertive).
import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { fieldLabel } from '../lib/limits';
import { EMPTY_QUEUE, TOAST_PRIORITY, dismiss, enqueue } from './toastQueue';

export type ToastKind = 'success' | 'error' | 'info' | 'warning';
export const TOAST_MS = 4000;

export interface ToastOptions {
  /** TOAST_PRIORITY.normal unless said (status notices are lower, Dynatrace problems higher). */
  priority?: number;
  /** While a toast with this key shows or waits, another one with it is dropped. */
  key?: string;
}

export type ToastFn = (kind: ToastKind, message: string, options?: ToastOptions) => void;
const ToastContext = createContext<ToastFn>(() => {});

export function ToastProvider({ children }: { children: ReactNode }) {
  const [queue, setQueue] = useState(EMPTY_QUEUE);
  const seq = useRef(0);
  // Each visible toast's timer, with the `shown` mark it was started for.
  const timers = useRef(new Map<number, { timer: ReturnType<typeof setTimeout>; shown: number | undefined }>());
  const push = useCallback<ToastFn>((kind, message, options) => {
    const id = ++seq.current;
    setQueue((q) => enqueue(q, { id, kind, message, priority: options?.priority ?? TOAST_PRIORITY.normal, key: options?.key ?? null }));
  }, []);
  // Each toast's 4 s start when it shows, and again when an identical one is counted on it; one
  // sent back to wait starts again when it shows again.
  useEffect(() => {
    const held = timers.current;
    for (const t of queue.visible) {
      const h = held.get(t.id);
      if (h && h.shown === t.shown) continue;
      if (h) clearTimeout(h.timer);
      held.set(t.id, {
        shown: t.shown,
        timer: setTimeout(() => {
          held.delete(t.id);
          setQueue((q) => dismiss(q, t.id));
        }, TOAST_MS),
      });
    }
    for (const [id, h] of held) {
      if (!queue.visible.some((t) => t.id === id)) {
        clearTimeout(h.timer);
        held.delete(id);
      }
    }
  }, [queue.visible]);
  useEffect(() => {
    const held = timers.current;
    return () => {
      for (const h of held.values()) clearTimeout(h.timer);
      held.clear();
    };
  }, []);
  const toasts = queue.visible;
  return (
    <ToastContext.Provider value={push}>
      {children}
      <div className="toasts" role="log" aria-live="polite" aria-label="Notifications" data-testid="toasts">
        {toasts.map((t) => (
          <div
            key={t.id}
            className={`toast toast-${t.kind}`}
            role={t.kind === 'error' ? 'alert' : undefined}
            data-testid="toast"
          >
            {t.message}
            {(t.count ?? 1) > 1 && (
              <span className="toast-count" data-testid="toast-count">
                <span aria-hidden="true"> ×{t.count}</span>
                <span className="visually-hidden"> ({t.count} times)</span>
              </span>
            )}
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

export const useToast = () => useContext(ToastContext);

export function errorMessage(err: unknown, fallback = 'Something went wrong.'): string {
  if (err && typeof err === 'object' && 'fieldErrors' in err) {
    const fe = (err as { fieldErrors: Record<string, { message: string }> }).fieldErrors;
    // Operator-facing field names ("Team name", not "teamId").
    const parts = Object.entries(fe).map(([f, v]) => `${fieldLabel(f)}: ${v.message}`);
    if (parts.length) return parts.join(' ');
  }
  return err instanceof Error && err.message ? err.message : fallback;
}
