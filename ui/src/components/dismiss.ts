// Light-dismiss rules for popovers (pure, tested without a DOM): Esc and a press outside the
// popover (and outside its toggle button) close it. `useDismiss` wires them to the document.
import { useEffect, type RefObject } from 'react';

interface Containerish {
  contains(n: unknown): boolean;
}

/** Why an event closes an open popover rooted at `root`, or null when it does not. */
export function dismissReason(e: { type: string; key?: string; target: unknown }, root: Containerish | null): 'escape' | 'outside' | null {
  if (e.type === 'keydown') return e.key === 'Escape' ? 'escape' : null;
  if (e.type === 'mousedown' || e.type === 'focusin') return root && !root.contains(e.target) ? 'outside' : null;
  return null;
}

/** Closes the popover rooted at `ref` on Esc, an outside press or focus moving out, while `open`. */
export function useDismiss(open: boolean, ref: RefObject<HTMLElement | null>, close: () => void) {
  useEffect(() => {
    if (!open) return;
    const on = (e: Event) => {
      const why = dismissReason({ type: e.type, key: (e as KeyboardEvent).key, target: e.target }, ref.current);
      if (!why) return;
      if (why === 'escape') e.stopPropagation();
      close();
    };
    // Capture phase: Esc closes the popover before any global handler sees it.
    document.addEventListener('keydown', on, true);
    document.addEventListener('mousedown', on, true);
    document.addEventListener('focusin', on, true);
    return () => {
      document.removeEventListener('keydown', on, true);
      document.removeEventListener('mousedown', on, true);
      document.removeEventListener('focusin', on, true);
    };
  }, [open, ref, close]);
}
