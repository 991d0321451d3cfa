// Where keyboard focus goes when the shown tab changes (issue #38: after Ctrl+1 focus was left on
// the page body and Copy All was ~37 Tabs away): to the new tab's main heading (its <h1>, made
// focusable with tabindex=-1), or to the main region itself while the tab has none yet (a lazy
// tab still loading: its heading takes focus over when it appears, if focus is still on main). Focus is left alone when it is already where the operator is working: in
// the sidebar nav (choosing a tab there keeps focus on the chosen item, so the arrows go on
// working) or inside the new tab (a view that focused a record itself). The skip link ("Skip to
// main content") uses the same target. DOM only, no React.

/** The element the tab's main content starts at: its first <h1>, else `main`. */
export function mainTarget(pane: Element | null, main: HTMLElement | null): HTMLElement | null {
  const heading = pane?.querySelector<HTMLElement>('h1');
  if (heading) {
    if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
    return heading;
  }
  return main;
}

/** Whether a tab change should move focus from `active` (see the module comment). */
export function shouldMoveFocus(active: Element | null, nav: Element | null, pane: Element | null): boolean {
  if (!active || active === active.ownerDocument?.body) return true;
  if (nav?.contains(active)) return false;
  if (pane?.contains(active)) return false;
  return true;
}

/** Focuses the tab's main heading (or `main`); answers the element focused. */
export function focusMain(pane: Element | null, main: HTMLElement | null): HTMLElement | null {
  const target = mainTarget(pane, main);
  target?.focus({ preventScroll: false });
  return target;
}

/** How long a tab that is still loading may take to show its heading and still receive focus. */
export const HEADING_WAIT_MS = 5000;

/**
 * focusMain now; when that had to settle for `main` (no heading yet), moves focus on to the
 * heading once it appears, provided focus is still on `main` (or nowhere). Answers a cleanup.
 */
export function focusMainWhenReady(pane: () => Element | null, main: HTMLElement | null, waitMs = HEADING_WAIT_MS): () => void {
  const first = focusMain(pane(), main);
  if (!main || first !== main || typeof MutationObserver === 'undefined') return () => {};
  const observer = new MutationObserver(() => {
    const heading = pane()?.querySelector('h1');
    if (!heading) return;
    stop();
    const active = main.ownerDocument.activeElement;
    if (active === main || active === main.ownerDocument.body) focusMain(pane(), main);
  });
  const timer = setTimeout(() => stop(), waitMs);
  function stop() {
    observer.disconnect();
    clearTimeout(timer);
  }
  observer.observe(main, { childList: true, subtree: true });
  return stop;
}
