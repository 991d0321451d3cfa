// Right-click menu (and anchored popover menu): positioned at the pointer, focus on its first
// item; ↑/↓ (wrapping), Home and End move between the enabled items, Enter/Space pick one (the
// buttons' own); closes on Esc, outside click, window blur or pick, telling onClose which. A
// click on `anchor` (the button that opened the menu) is not "outside": the anchor toggles.
import { useEffect, useRef, type KeyboardEvent, type RefObject } from 'react';

export interface MenuItem {
  label: string;
  onSelect: () => void;
  disabled?: boolean;
  danger?: boolean;
}

export type MenuCloseReason = 'escape' | 'outside' | 'blur' | 'pick';

/** The item index ArrowDown/ArrowUp (wrapping), Home or End moves to from `index` of `count`; null for any other key. */
export function menuKeyTarget(key: string, index: number, count: number): number | null {
  if (count <= 0) return null;
  if (key === 'ArrowDown') return index < 0 ? 0 : (index + 1) % count;
  if (key === 'ArrowUp') return index < 0 ? count - 1 : (index - 1 + count) % count;
  if (key === 'Home') return 0;
  if (key === 'End') return count - 1;
  return null;
}

export function ContextMenu({
  x,
  y,
  items,
  onClose,
  label,
  anchor,
  testId = 'context-menu',
  id,
}: {
  x: number;
  y: number;
  items: MenuItem[];
  onClose: (reason: MenuCloseReason) => void;
  /** The menu's accessible name. */
  label?: string;
  anchor?: RefObject<HTMLElement | null>;
  testId?: string;
  id?: string;
}) {
  const ref = useRef<HTMLUListElement>(null);
  const closeRef = useRef(onClose);
  closeRef.current = onClose;
  useEffect(() => {
    const onClose = (reason: MenuCloseReason) => closeRef.current(reason);
    ref.current?.querySelector<HTMLButtonElement>('button:not(:disabled)')?.focus();
    const close = (e: Event) => {
      const target = e.target as Node;
      if (ref.current?.contains(target) || anchor?.current?.contains(target)) return;
      onClose('outside');
    };
    const key = (e: globalThis.KeyboardEvent) => e.key === 'Escape' && onClose('escape');
    const blur = () => onClose('blur');
    window.addEventListener('mousedown', close);
    window.addEventListener('keydown', key);
    window.addEventListener('blur', blur);
    return () => {
      window.removeEventListener('mousedown', close);
      window.removeEventListener('keydown', key);
      window.removeEventListener('blur', blur);
    };
  }, [anchor]);
  const onKeyDown = (e: KeyboardEvent<HTMLUListElement>) => {
    const buttons = [...e.currentTarget.querySelectorAll<HTMLButtonElement>('button[role="menuitem"]:not(:disabled)')];
    const to = menuKeyTarget(e.key, buttons.indexOf(document.activeElement as HTMLButtonElement), buttons.length);
    if (to === null) return;
    e.preventDefault();
    buttons[to].focus();
  };
  const left = Math.max(0, Math.min(x, window.innerWidth - 220));
  const top = Math.max(0, Math.min(y, window.innerHeight - items.length * 34 - 16));
  return (
    <ul ref={ref} id={id} className="context-menu" role="menu" aria-label={label} style={{ left, top }} data-testid={testId} onKeyDown={onKeyDown}>
      {items.map((it, i) => (
        <li key={`${i}:${it.label}`} role="none">
          <button
            type="button"
            role="menuitem"
            className={it.danger ? 'menu-item menu-danger' : 'menu-item'}
            disabled={it.disabled}
            onClick={() => {
              onClose('pick');
              it.onSelect();
            }}
          >
            {it.label}
          </button>
        </li>
      ))}
    </ul>
  );
}
