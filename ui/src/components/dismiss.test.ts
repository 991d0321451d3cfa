import { describe, expect, it } from 'vitest';
import { dismissReason } from './dismiss';

const inside = { id: 'inside' };
const outside = { id: 'outside' };
const root = { contains: (n: unknown) => n === inside };

describe('popover light dismiss', () => {
  it('closes on Esc only among keys', () => {
    expect(dismissReason({ type: 'keydown', key: 'Escape', target: inside }, root)).toBe('escape');
    expect(dismissReason({ type: 'keydown', key: 'Enter', target: inside }, root)).toBeNull();
  });
  it('closes on a press or focus outside, not inside', () => {
    expect(dismissReason({ type: 'mousedown', target: outside }, root)).toBe('outside');
    expect(dismissReason({ type: 'focusin', target: outside }, root)).toBe('outside');
    expect(dismissReason({ type: 'mousedown', target: inside }, root)).toBeNull();
    expect(dismissReason({ type: 'scroll', target: outside }, root)).toBeNull();
  });
});
