// Keyboard shortcuts: ONLY the ones that have handlers in Shell are listed here,
// and the Shortcuts help renders exactly this table. A key a control already handled (its
// keydown default prevented, e.g. Ctrl+1..5 and Ctrl+K in the alert body editor) is left to it.
import type { TabId } from './tabs';

export type ShortcutAction =
  | { type: 'tab'; tab: TabId }
  | { type: 'search' }
  | { type: 'settings' }
  | { type: 'help' }
  | { type: 'escape' };

/** Cmd/Ctrl+1..7 order (not the sidebar order). */
export const NUMBER_TABS: TabId[] = ['compose', 'oncall', 'people', 'servers', 'status', 'notes', 'alerts'];

export interface KeyLike {
  key: string;
  code?: string;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
  defaultPrevented?: boolean;
}

export function shortcutFor(e: KeyLike): ShortcutAction | null {
  if (e.defaultPrevented) return null;
  if (e.key === 'Escape') return { type: 'escape' };
  const mod = e.ctrlKey || e.metaKey;
  if (!mod || e.altKey) return null;
  if (e.shiftKey && (e.key === '?' || e.key === '/' || e.code === 'Slash')) return { type: 'help' };
  if (e.shiftKey) return null;
  if (/^[1-7]$/.test(e.key)) return { type: 'tab', tab: NUMBER_TABS[Number(e.key) - 1] };
  if (e.key.toLowerCase() === 'k') return { type: 'search' };
  if (e.key === ',') return { type: 'settings' };
  return null;
}

export const SHORTCUT_HELP: { keys: string; what: string }[] = [
  ...NUMBER_TABS.map((t, i) => ({ keys: `Ctrl/Cmd+${i + 1}`, what: `Go to ${t === 'oncall' ? 'On-Call' : t[0].toUpperCase() + t.slice(1)}` })),
  { keys: 'Ctrl/Cmd+K', what: 'Focus search' },
  { keys: 'Ctrl/Cmd+,', what: 'Open Settings' },
  { keys: 'Ctrl/Cmd+Shift+/', what: 'Show this help' },
  { keys: 'Esc', what: 'Close the open dialog / search' },
];
