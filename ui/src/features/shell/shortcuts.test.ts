import { describe, expect, it } from 'vitest';
import { SHORTCUT_HELP, shortcutFor } from './shortcuts';

const k = (key: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; shiftKey: boolean; altKey: boolean }> = {}) => ({
  key,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  altKey: false,
  ...mods,
});

describe('shortcuts', () => {
  it('maps Ctrl/Cmd+1..7 to Compose, On-Call, People, Servers, Status, Notes, Alerts', () => {
    const tabs = ['1', '2', '3', '4', '5', '6', '7'].map((n) => shortcutFor(k(n, { ctrlKey: true })));
    expect(tabs.map((t) => (t?.type === 'tab' ? t.tab : null))).toEqual([
      'compose', 'oncall', 'people', 'servers', 'status', 'notes', 'alerts',
    ]);
    expect(shortcutFor(k('3', { metaKey: true }))).toEqual({ type: 'tab', tab: 'people' });
  });
  it('maps search, settings, help and Esc; ignores unmodified keys', () => {
    expect(shortcutFor(k('k', { ctrlKey: true }))).toEqual({ type: 'search' });
    expect(shortcutFor(k(',', { metaKey: true }))).toEqual({ type: 'settings' });
    expect(shortcutFor(k('?', { ctrlKey: true, shiftKey: true }))).toEqual({ type: 'help' });
    expect(shortcutFor(k('Escape'))).toEqual({ type: 'escape' });
    expect(shortcutFor(k('1'))).toBeNull();
    expect(shortcutFor(k('8', { ctrlKey: true }))).toBeNull();
    expect(shortcutFor(k('c', { ctrlKey: true, shiftKey: true }))).toBeNull(); // no "Copy Bridge" handler
  });
  it('leaves a key to the control that already handled it (the alert body editor\'s Ctrl+1..5, Ctrl+K)', () => {
    expect(shortcutFor({ ...k('2', { ctrlKey: true }), defaultPrevented: true })).toBeNull();
    expect(shortcutFor({ ...k('k', { metaKey: true }), defaultPrevented: true })).toBeNull();
    expect(shortcutFor({ ...k('2', { ctrlKey: true }), defaultPrevented: false })).toEqual({ type: 'tab', tab: 'oncall' });
  });
  it('help lists only handled shortcuts', () => {
    expect(SHORTCUT_HELP.map((s) => s.keys)).not.toContain('Ctrl/Cmd+Shift+C');
    expect(SHORTCUT_HELP).toHaveLength(11);
  });
});
