// The shell's tab catalogue: ids (used in data-testid="nav-<id>") and labels,
// in sidebar order, and which nav item an arrow key moves focus to.
export const TABS = [
  { id: 'compose', label: 'Compose' },
  { id: 'alerts', label: 'Alerts' },
  { id: 'oncall', label: 'On-Call' },
  { id: 'notes', label: 'Notes' },
  { id: 'status', label: 'Status' },
  { id: 'people', label: 'People' },
  { id: 'servers', label: 'Servers' },
  { id: 'radar', label: 'Radar' },
  { id: 'problems', label: 'Problems' },
  { id: 'knowledge', label: 'Knowledge' },
  { id: 'settings', label: 'Settings' },
] as const;

export type TabId = (typeof TABS)[number]['id'];

export const DEFAULT_TAB: TabId = 'compose';

export function tabLabel(id: TabId): string {
  return TABS.find((t) => t.id === id)?.label ?? id;
}

/**
 * The sidebar nav's arrow keys: the index ArrowDown/ArrowUp (wrapping), Home or End moves focus
 * to from `index` among `count` items; null for any other key. Enter/Space stay the button's own.
 */
export function navKeyTarget(key: string, index: number, count: number): number | null {
  if (count <= 0) return null;
  if (key === 'ArrowDown') return (index + 1) % count;
  if (key === 'ArrowUp') return (index - 1 + count) % count;
  if (key === 'Home') return 0;
  if (key === 'End') return count - 1;
  return null;
}
