import { describe, expect, it } from 'vitest';
import { computeWindow } from './virtual';

describe('virtual list windowing', () => {
  it('renders only the visible rows plus overscan', () => {
    const w = computeWindow({ scrollTop: 0, viewportHeight: 720, rowHeight: 72, count: 10_000, overscan: 5 });
    expect(w).toEqual({ start: 0, end: 16, offset: 0, totalHeight: 720_000 });
  });
  it('follows the scroll position', () => {
    const w = computeWindow({ scrollTop: 72 * 500 + 10, viewportHeight: 720, rowHeight: 72, count: 10_000, overscan: 5 });
    expect(w.start).toBe(495);
    expect(w.end).toBe(516); // rows 500..510 are (partly) visible, + 5 overscan
    expect(w.offset).toBe(495 * 72);
  });
  it('clamps past the end and handles small or empty lists', () => {
    const w = computeWindow({ scrollTop: 1e9, viewportHeight: 720, rowHeight: 72, count: 10_000, overscan: 5 });
    expect(w.end).toBe(10_000);
    expect(w.start).toBeGreaterThan(9_980);
    expect(computeWindow({ scrollTop: 0, viewportHeight: 720, rowHeight: 72, count: 3 })).toMatchObject({ start: 0, end: 3 });
    expect(computeWindow({ scrollTop: 0, viewportHeight: 720, rowHeight: 72, count: 0 }).end).toBe(0);
  });
});
