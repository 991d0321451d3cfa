// What a People row's context menu offers, as a pure rule: Add to Composer and Manage Groups
// (both need an email: groups hold addresses), Notes, Edit and Delete. Opening it (right-click,
// Shift+F10, the ContextMenu key) is components/menuTrigger; Manage Groups is Compose's own
// ManageGroupsModal. PeopleView acts on the answers.

export type PersonAction = 'compose' | 'manage-groups' | 'notes' | 'edit' | 'delete';

export interface PersonMenuItem {
  action: PersonAction;
  label: string;
  disabled?: boolean;
  danger?: boolean;
}

export function personActions(person: { email?: string | null }, added: boolean): PersonMenuItem[] {
  const noEmail = !person.email?.trim();
  return [
    { action: 'compose', label: added ? 'Added' : 'Add to Composer', disabled: noEmail },
    { action: 'manage-groups', label: 'Manage Groups', disabled: noEmail },
    { action: 'notes', label: 'Notes' },
    { action: 'edit', label: 'Edit' },
    { action: 'delete', label: 'Delete', danger: true },
  ];
}
