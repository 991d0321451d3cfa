// How a row opens its context menu, shared by every list with one (Compose recipients and
// bridge history, People): right-click, the ContextMenu key or Shift+F10. Pure rules (which keys,
// where a keyboard-opened menu sits) plus `menuTrigger`, the props a row spreads to get both.
import type { KeyboardEvent, MouseEvent } from 'react';

/** Where a menu opens, and for what. */
export type MenuAt<T> = { x: number; y: number; item: T } | null;

/** The keyboard's "open the context menu" keys. */
export function isMenuKey(e: { key: string; shiftKey?: boolean }): boolean {
  return e.key === 'ContextMenu' || (Boolean(e.shiftKey) && e.key === 'F10');
}

/** A keyboard-opened menu sits at the element's lower-left corner, a little inset. */
export function menuPointFor(rect: { left: number; top: number; height: number }): { x: number; y: number } {
  return { x: Math.round(rect.left + 16), y: Math.round(rect.top + Math.min(rect.height, 48)) };
}

/** Props opening a context menu on `item` from the mouse (right-click) or the keyboard (Shift+F10, ContextMenu key). */
export function menuTrigger<T>(item: T, open: (m: MenuAt<T>) => void) {
  return {
    onContextMenu: (e: MouseEvent<HTMLElement>) => {
      e.preventDefault();
      // The ContextMenu key also fires contextmenu (at 0,0 or the caret): place it at the element.
      if (e.clientX === 0 && e.clientY === 0) open({ ...menuPointFor(e.currentTarget.getBoundingClientRect()), item });
      else open({ x: e.clientX, y: e.clientY, item });
    },
    onKeyDown: (e: KeyboardEvent<HTMLElement>) => {
      if (!isMenuKey(e)) return;
      e.preventDefault();
      open({ ...menuPointFor(e.currentTarget.getBoundingClientRect()), item });
    },
  };
}
