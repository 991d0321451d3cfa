// Tests for Compose's context-menu rules: menu keys, keyboard placement, the recipient and
// history entries' items, and group membership by email.
import { describe, expect, it } from 'vitest';
import { HISTORY_ACTIONS, historyRecipientsText, isMember, isMenuKey, menuPointFor, recipientActions, withMembership } from './recipientMenu';

describe('isMenuKey', () => {
  it('opens on the ContextMenu key and Shift+F10 only', () => {
    expect(isMenuKey({ key: 'ContextMenu' })).toBe(true);
    expect(isMenuKey({ key: 'F10', shiftKey: true })).toBe(true);
    expect(isMenuKey({ key: 'F10' })).toBe(false);
    expect(isMenuKey({ key: 'Enter', shiftKey: true })).toBe(false);
  });
});

describe('menuPointFor', () => {
  it('opens inside the row, not over the next one', () => {
    expect(menuPointFor({ left: 100, top: 200, height: 72 })).toEqual({ x: 116, y: 248 });
    expect(menuPointFor({ left: 10.4, top: 20, height: 30 })).toEqual({ x: 26, y: 50 });
  });
});

describe('recipientActions', () => {
  it('offers Save to Contacts only for an unknown address', () => {
    expect(recipientActions(false).map((a) => a.label)).toEqual(['Save to Contacts', 'Manage Groups', 'Remove from List']);
    expect(recipientActions(true).map((a) => a.label)).toEqual(['Manage Groups', 'Remove from List']);
  });
});

describe('history menu', () => {
  it('offers use, copy, save as group and delete (danger)', () => {
    expect(HISTORY_ACTIONS.map((a) => a.label)).toEqual(['Use again', 'Copy recipients', 'Save as Group', 'Delete']);
    expect(HISTORY_ACTIONS.find((a) => a.action === 'delete')?.danger).toBe(true);
  });
  it('copies the recipients as Copy All does', () => {
    expect(historyRecipientsText({ contacts: ['a@x.com', 'b@x.com'] })).toBe('a@x.com; b@x.com');
    expect(historyRecipientsText({ contacts: null })).toBe('');
  });
});

describe('membership', () => {
  it('matches emails case-insensitively', () => {
    expect(isMember({ contacts: ['Ada@X.com'] }, 'ada@x.com')).toBe(true);
    expect(isMember({ contacts: null }, 'ada@x.com')).toBe(false);
  });
  it('adds once and removes every casing', () => {
    expect(withMembership(['a@x.com'], 'b@x.com', true)).toEqual(['a@x.com', 'b@x.com']);
    expect(withMembership(['B@x.com', 'a@x.com'], 'b@x.com', true)).toEqual(['a@x.com', 'b@x.com']);
    expect(withMembership(['B@x.com', 'a@x.com', 'b@X.com'], 'b@x.com', false)).toEqual(['a@x.com']);
    expect(withMembership(undefined, ' c@x.com ', true)).toEqual(['c@x.com']);
  });
});
