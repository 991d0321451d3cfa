import { describe, expect, it } from 'vitest';
import { isTabbable, restoreTarget, trapTarget } from './focusTrap';

describe('trapTarget', () => {
  it('wraps Tab from the last element to the first, and Shift+Tab from the first to the last', () => {
    expect(trapTarget(4, 3, false)).toBe(0);
    expect(trapTarget(4, 0, true)).toBe(3);
  });
  it('lets the browser move focus between inner elements', () => {
    expect(trapTarget(4, 1, false)).toBeNull();
    expect(trapTarget(4, 2, true)).toBeNull();
  });
  it('brings focus that is on the dialog or outside it back in', () => {
    expect(trapTarget(4, -1, false)).toBe(0);
    expect(trapTarget(4, -1, true)).toBe(3);
    expect(trapTarget(1, 0, false)).toBe(0);
    expect(trapTarget(0, -1, false)).toBeNull();
  });
});

describe('isTabbable', () => {
  const el = (o: { disabled?: boolean; tabIndex?: number; hidden?: boolean; ariaHidden?: string }) => ({
    disabled: o.disabled, tabIndex: o.tabIndex ?? 0, hidden: o.hidden, getAttribute: (n: string) => (n === 'aria-hidden' ? o.ariaHidden ?? null : null),
  });
  it('skips disabled, hidden and tabindex=-1 elements', () => {
    expect(isTabbable(el({}))).toBe(true);
    expect(isTabbable(el({ disabled: true }))).toBe(false);
    expect(isTabbable(el({ tabIndex: -1 }))).toBe(false);
    expect(isTabbable(el({ hidden: true }))).toBe(false);
    expect(isTabbable(el({ ariaHidden: 'true' }))).toBe(false);
  });
});

describe('restoreTarget', () => {
  it('returns focus to the opener while it is still in the document', () => {
    const opener = { isConnected: true };
    const fallback = { isConnected: true };
    expect(restoreTarget(opener, fallback)).toBe(opener);
    expect(restoreTarget({ isConnected: false }, fallback)).toBe(fallback);
    expect(restoreTarget(null, null)).toBeNull();
  });
});
