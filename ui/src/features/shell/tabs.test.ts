// The sidebar nav's arrow-key moves.
import { describe, expect, it } from 'vitest';
import { navKeyTarget, TABS } from './tabs';

describe('navKeyTarget', () => {
  const n = TABS.length;
  it('moves down and up, wrapping at the ends', () => {
    expect(navKeyTarget('ArrowDown', 0, n)).toBe(1);
    expect(navKeyTarget('ArrowDown', n - 1, n)).toBe(0);
    expect(navKeyTarget('ArrowUp', 3, n)).toBe(2);
    expect(navKeyTarget('ArrowUp', 0, n)).toBe(n - 1);
  });
  it('Home and End jump to the first and last item', () => {
    expect(navKeyTarget('Home', 5, n)).toBe(0);
    expect(navKeyTarget('End', 1, n)).toBe(n - 1);
  });
  it('leaves other keys (Enter, Tab, letters) and an empty list alone', () => {
    for (const k of ['Enter', ' ', 'Tab', 'a', 'ArrowLeft']) expect(navKeyTarget(k, 2, n)).toBeNull();
    expect(navKeyTarget('ArrowDown', 0, 0)).toBeNull();
  });
});
