// Compose's context menus, as pure rules (the keys that open a menu and where it opens live in
// components/menuTrigger, re-exported here): what a recipient's menu offers (Save to
// Contacts only for an address no contact has; Manage Groups; Remove from List) and what a
// bridge history entry's menu offers; group membership edits by email. No React, no transport:
// ComposeView and ./ManageGroupsModal act on the answers.
import type { BridgeHistory, GroupRecord } from './groups';

// The keyboard rules are shared with every list that has a context menu.
export { isMenuKey, menuPointFor } from '../../components/menuTrigger';

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
