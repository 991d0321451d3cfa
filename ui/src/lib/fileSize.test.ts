// File sizes said honestly (issue #38: a 9-byte file showed as "1 KB").
import { describe, expect, it } from 'vitest';
import { formatFileSize } from './fileSize';
import { formatSize } from '../features/admin/wikiModel';

describe('formatFileSize', () => {
  it('says bytes below 1 KB as bytes', () => {
    expect(formatFileSize(0)).toBe('0 B');
    expect(formatFileSize(9)).toBe('9 B');
    expect(formatFileSize(1023)).toBe('1023 B');
  });
  it('says KB, MB and GB with one decimal below ten, whole numbers from ten up', () => {
    expect(formatFileSize(1024)).toBe('1 KB');
    expect(formatFileSize(1536)).toBe('1.5 KB');
    expect(formatFileSize(850_000)).toBe('830 KB');
    expect(formatFileSize(1024 * 1024 - 1)).toBe('1 MB');
    expect(formatFileSize(13_002_342)).toBe('12 MB');
    expect(formatFileSize(5 * 1024 * 1024 + 300_000)).toBe('5.3 MB');
    expect(formatFileSize(3 * 1024 ** 3)).toBe('3 GB');
  });
  it('says nothing made up for a size that is not one', () => {
    expect(formatFileSize(Number.NaN)).toBe('—');
    expect(formatFileSize(-1)).toBe('—');
  });
  it('is what the Wiki upload list shows', () => {
    expect(formatSize(9)).toBe('9 B');
    expect(formatSize(1536)).toBe('1.5 KB');
  });
});
