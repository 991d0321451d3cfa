// Focus trap rules for modal dialogs (pure, so they are tested without a DOM): which element
// Tab / Shift+Tab moves to when focus would leave the dialog, and which elements count as
// focusable. The Modal component applies them; focus never reaches the page behind a dialog.

/** Elements that take keyboard focus (disabled and tabindex=-1 ones are filtered afterwards). */
export const FOCUSABLE =
  'a[href], button, input, select, textarea, iframe, [contenteditable="true"], [tabindex]';

/**
 * The index to focus for a Tab press inside a dialog with `count` focusable elements, when focus
 * is on `index` (-1: on the dialog itself or outside it). Returns null when the browser's own
 * move stays inside the dialog; an index when it must wrap (last → first, first → last) or
 * bring focus back in.
 */
export function trapTarget(count: number, index: number, shift: boolean): number | null {
  if (count <= 0) return null;
  if (index < 0) return shift ? count - 1 : 0;
  if (shift && index === 0) return count - 1;
  if (!shift && index === count - 1) return 0;
  return null;
}

/** Whether an element matched by FOCUSABLE really takes Tab focus. */
export function isTabbable(el: { disabled?: boolean; tabIndex: number; hidden?: boolean | string; getAttribute(n: string): string | null }): boolean {
  if (el.disabled || el.hidden) return false;
  if (el.tabIndex < 0) return false;
  return el.getAttribute('aria-hidden') !== 'true';
}

/** Where focus goes when a dialog closes: the opener if it is still in the document. */
export function restoreTarget<T extends { isConnected: boolean }>(opener: T | null, fallback: T | null): T | null {
  if (opener && opener.isConnected) return opener;
  return fallback && fallback.isConnected ? fallback : null;
}
