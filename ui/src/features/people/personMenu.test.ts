// A People row's context menu: the items, and Add to Composer / Manage Groups only with an email.
import { describe, expect, it } from 'vitest';
import { personActions } from './personMenu';

describe('personActions', () => {
  it('offers Manage Groups beside the row actions', () => {
    expect(personActions({ email: 'ada@example.com' }, false)).toEqual([
      { action: 'compose', label: 'Add to Composer', disabled: false },
      { action: 'manage-groups', label: 'Manage Groups', disabled: false },
      { action: 'notes', label: 'Notes' },
      { action: 'edit', label: 'Edit' },
      { action: 'delete', label: 'Delete', danger: true },
    ]);
    expect(personActions({ email: 'ada@example.com' }, true)[0].label).toBe('Added');
  });

  it('disables the email actions for a contact without an email', () => {
    for (const email of [undefined, null, '', '   ']) {
      const items = personActions({ email }, false);
      expect(items.filter((i) => i.disabled).map((i) => i.action)).toEqual(['compose', 'manage-groups']);
    }
  });
});
