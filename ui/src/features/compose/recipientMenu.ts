// Compose's context menus, as pure rules: which keys open a menu from the keyboard (the
// ContextMenu key, Shift+F10) and where it opens; what a recipient's menu offers (Save to
// Contacts only for an address no contact has; Manage Groups; Remove from List) and what a
// bridge history entry's menu offers; group membership edits by email. No React, no transport:
// ComposeView and ./ManageGroupsModal act on the answers.
import type { BridgeHistory, GroupRecord } from './groups';

/** The keyboard's "open the context menu" keys. */
export function isMenuKey(e: { key: string; shiftKey?: boolean }): boolean {
  return e.key === 'ContextMenu' || (Boolean(e.shiftKey) && e.key === 'F10');
}

/** A keyboard-opened menu sits at the element's lower-left corner, a little inset. */
export function menuPointFor(rect: { left: number; top: number; height: number }): { x: number; y: number } {
  return { x: Math.round(rect.left + 16), y: Math.round(rect.top + Math.min(rect.height, 48)) };
}

export type RecipientAction = 'save-contact' | 'manage-groups' | 'remove';

export function recipientActions(isContact: boolean): { action: RecipientAction; label: string; danger?: boolean }[] {
  return [
    ...(isContact ? [] : [{ action: 'save-contact' as const, label: 'Save to Contacts' }]),
    { action: 'manage-groups', label: 'Manage Groups' },
    { action: 'remove', label: 'Remove from List', danger: true },
  ];
}

export type HistoryAction = 'use' | 'copy' | 'save-group' | 'delete';

export const HISTORY_ACTIONS: readonly { action: HistoryAction; label: string; danger?: boolean }[] = [
  { action: 'use', label: 'Use again' },
  { action: 'copy', label: 'Copy recipients' },
  { action: 'save-group', label: 'Save as Group' },
  { action: 'delete', label: 'Delete', danger: true },
];

/** A history entry's recipients as Copy All writes them: emails joined by "; ". */
export function historyRecipientsText(h: Pick<BridgeHistory, 'contacts'>): string {
  return (h.contacts ?? []).join('; ');
}

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

export function isMember(g: Pick<GroupRecord, 'contacts'>, email: string): boolean {
  return (g.contacts ?? []).some((e) => same(e, email));
}

/** `contacts` with `email` added (once, as typed) or removed (every casing). */
export function withMembership(contacts: readonly string[] | null | undefined, email: string, member: boolean): string[] {
  const rest = (contacts ?? []).filter((e) => !same(e, email));
  return member ? [...rest, email.trim()] : rest;
}
