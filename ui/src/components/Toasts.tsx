// Toasts: success / error / info / warning, auto-close after 4 s. The container is a polite live
// region that is always in the document (a region inserted with its text is not announced), so
// every toast is read out without interrupting; errors are role=alert (assertive).
import { createContext, useCallback, useContext, useRef, useState, type ReactNode } from 'react';
import { fieldLabel } from '../lib/limits';

export type ToastKind = 'success' | 'error' | 'info' | 'warning';
interface Toast {
  id: number;
  kind: ToastKind;
  message: string;
}
export const TOAST_MS = 4000;

type ToastFn = (kind: ToastKind, message: string) => void;
const ToastContext = createContext<ToastFn>(() => {});

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const seq = useRef(0);
  const push = useCallback<ToastFn>((kind, message) => {
    const id = ++seq.current;
    setToasts((t) => [...t.slice(-4), { id, kind, message }]);
    setTimeout(() => setToasts((t) => t.filter((x) => x.id !== id)), TOAST_MS);
  }, []);
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
