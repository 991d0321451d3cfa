// Excerpt parts from the server's character ranges: plain and marked text in order, ranges
// counted in code points (a non-BMP character is one), bad or overlapping ranges handled.
import { describe, expect, it } from 'vitest';
import { excerptParts } from './excerpt';

const marked = (text: string, ranges: number[][]) =>
  excerptParts(text, ranges)
    .filter((p) => p.mark)
    .map((p) => p.text);

describe('excerptParts', () => {
  it('splits the excerpt into text and marks without losing a character', () => {
    const parts = excerptParts('Restart the collector on page three', [[12, 21], [30, 35]]);
    expect(parts).toEqual([
      { text: 'Restart the ', mark: false },
      { text: 'collector', mark: true },
      { text: ' on page ', mark: false },
      { text: 'three', mark: true },
    ]);
    expect(parts.map((p) => p.text).join('')).toBe('Restart the collector on page three');
  });

  it('counts ranges in code points, so non-BMP characters (emoji, CJK extension B) stay whole', () => {
    const text = '🚨 Alarm 𠀋 router 🚨 reboot';
    // Code points: '🚨'=0, ' '=1, 'Alarm'=2..7, ' '=7, '𠀋'=8, ' '=9, 'router'=10..16
    expect(marked(text, [[2, 7], [8, 9], [10, 16]])).toEqual(['Alarm', '𠀋', 'router']);
    expect(marked(text, [[0, 1]])).toEqual(['🚨']);
    const all = excerptParts(text, [[17, 18]]);
    expect(all.find((p) => p.mark)?.text).toBe('🚨');
    expect(all.map((p) => p.text).join('')).toBe(text);
  });

  it('merges overlapping and unsorted ranges and clamps ones past the end', () => {
    expect(marked('abcdefghij', [[5, 8], [1, 3], [2, 6], [9, 50]])).toEqual(['bcdefgh', 'j']);
  });

  it('ignores empty, reversed, negative-only and malformed ranges', () => {
    const bad = [[3, 3], [5, 2], [-4, -1], [1.5, 2], ['a', 'b'] as unknown as number[], [1] as number[]];
    expect(excerptParts('abcdef', bad)).toEqual([{ text: 'abcdef', mark: false }]);
    expect(excerptParts('abcdef', null)).toEqual([{ text: 'abcdef', mark: false }]);
    expect(excerptParts('', [[0, 2]])).toEqual([]);
  });

  it('keeps markup-looking text as text (the view renders parts as text nodes)', () => {
    const parts = excerptParts('<img src=x onerror=alert(1)> reboot', [[29, 35]]);
    expect(parts).toEqual([
      { text: '<img src=x onerror=alert(1)> ', mark: false },
      { text: 'reboot', mark: true },
    ]);
  });
});
