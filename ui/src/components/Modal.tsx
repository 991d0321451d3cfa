// Modal dialog: Esc closes (handled globally via the modal stack), click on the backdrop closes,
// focus moves into the dialog on open, is trapped inside it (Tab and Shift+Tab wrap; focus that
// lands outside, e.g. by a click on the page behind, is brought back) and returns to the opener
// on close.
import { useEffect, useRef, type KeyboardEvent as ReactKeyboardEvent, type ReactNode } from 'react';
import { FOCUSABLE, isTabbable, restoreTarget, trapTarget } from './focusTrap';

const stack: (() => void)[] = [];
/** The open dialogs' elements, top-most last: only the top one holds focus. */
const elements: HTMLElement[] = [];

function tabbables(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => isTabbable(el as HTMLElement & { disabled?: boolean }) && el.getClientRects().length > 0);
}

/** Tab / Shift+Tab inside `root`: wraps at the ends instead of leaving the dialog. */
export function trapTab(e: ReactKeyboardEvent<HTMLElement> | KeyboardEvent, root: HTMLElement) {
  if (e.key !== 'Tab') return;
  const els = tabbables(root);
  const to = trapTarget(els.length, els.indexOf(document.activeElement as HTMLElement), e.shiftKey);
  if (els.length === 0) {
    e.preventDefault();
    root.focus();
  } else if (to !== null) {
    e.preventDefault();
    els[to].focus();
  }
}

/** Closes the top-most modal; returns whether one was open. Used by the global Esc handler. */
export function closeTopModal(): boolean {
  const top = stack[stack.length - 1];
  if (!top) return false;
  top();
  return true;
}

export function Modal({
  title,
  onClose,
  children,
  role = 'dialog',
  wide,
  className,
  testId,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  role?: 'dialog' | 'alertdialog';
  wide?: boolean;
  /** Extra class on the dialog (a size beyond `wide`, e.g. the PDF viewer's). */
  className?: string;
  testId?: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const closeRef = useRef(onClose);
  closeRef.current = onClose;
  useEffect(() => {
    const close = () => closeRef.current();
    const root = ref.current;
    stack.push(close);
    if (root) elements.push(root);
    const prev = document.activeElement as HTMLElement | null;
    const first = root?.querySelector<HTMLElement>('input, textarea, select, button:not(.modal-x)');
    (first ?? root)?.focus();
    // Focus that lands outside the top-most dialog (a click behind it, a programmatic focus)
    // goes back into the dialog.
    const onFocusIn = (e: FocusEvent) => {
      if (!root || elements[elements.length - 1] !== root) return;
      const t = e.target as Node | null;
      if (t && !root.contains(t) && !(t instanceof Element && t.closest('.toasts, .context-menu, .due-backdrop'))) {
        (tabbables(root)[0] ?? root).focus();
      }
    };
    document.addEventListener('focusin', onFocusIn);
    return () => {
      document.removeEventListener('focusin', onFocusIn);
      const i = stack.lastIndexOf(close);
      if (i >= 0) stack.splice(i, 1);
      const j = root ? elements.lastIndexOf(root) : -1;
      if (j >= 0) elements.splice(j, 1);
      // Back to the opener; when it is gone (e.g. a context-menu item), to the dialog below.
      restoreTarget(prev, elements[elements.length - 1] ?? null)?.focus?.();
    };
  }, []);
  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div
        ref={ref}
        onKeyDown={(e) => {
          // Only the top-most dialog traps (a nested one's keydown also bubbles through this one).
          if (ref.current && !e.defaultPrevented && elements[elements.length - 1] === ref.current) trapTab(e, ref.current);
        }}
        className={`${wide ? 'modal modal-wide' : 'modal'}${className ? ` ${className}` : ''}`}
        role={role}
        aria-modal="true"
        aria-label={title}
        tabIndex={-1}
        data-testid={testId}
      >
        <div className="modal-header">
          <h2 className="modal-title">{title}</h2>
          <button type="button" className="modal-x button button-ghost" aria-label="Close" onClick={onClose}>
            ×
          </button>
        </div>
        <div className="modal-body">{children}</div>
      </div>
    </div>
  );
}

export function Confirm({
  title,
  message,
  confirmLabel = 'Delete',
  onConfirm,
  onCancel,
}: {
  title: string;
  message: string;
  confirmLabel?: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <Modal title={title} onClose={onCancel} testId="confirm-dialog">
      <p>{message}</p>
      <div className="row-end">
        <button type="button" className="button button-ghost" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" data-testid="confirm-ok" className="button button-danger" onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </Modal>
  );
}
