// The shell's tab catalogue: ids (used in data-testid="nav-<id>") and labels,
// in sidebar order.
export const TABS = [
  { id: 'compose', label: 'Compose' },
  { id: 'alerts', label: 'Alerts' },
  { id: 'oncall', label: 'On-Call' },
  { id: 'notes', label: 'Notes' },
  { id: 'status', label: 'Status' },
  { id: 'people', label: 'People' },
  { id: 'servers', label: 'Servers' },
  { id: 'settings', label: 'Settings' },
] as const;

export type TabId = (typeof TABS)[number]['id'];

export const DEFAULT_TAB: TabId = 'compose';

export function tabLabel(id: TabId): string {
  return TABS.find((t) => t.id === id)?.label ?? id;
}
