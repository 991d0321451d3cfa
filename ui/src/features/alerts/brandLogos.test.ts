// loadLogo: a stored logo becomes an object URL for the card, none (or a failed read) shows
// nothing, and the cleanup revokes the URL and drops an answer that arrives after it.
import { describe, expect, it, vi } from 'vitest';
import type { ObjectUrls } from '../../lib/logoChanges';
import { loadLogo } from './brandLogos';

const flush = () => new Promise((r) => setTimeout(r, 0));

function fakeUrls() {
  let n = 0;
  const revoked: string[] = [];
  const urls: ObjectUrls = { createObjectURL: () => `blob:logo-${++n}`, revokeObjectURL: (u) => void revoked.push(u) };
  return { urls, revoked };
}

describe('loadLogo', () => {
  it('shows a stored logo and revokes its URL on cleanup', async () => {
    const { urls, revoked } = fakeUrls();
    const show = vi.fn();
    const read = vi.fn(async () => new Blob([new Uint8Array([137, 80, 78, 71])], { type: 'image/png' }));
    const stop = loadLogo(read, 'company', show, urls);
    await flush();
    expect(read).toHaveBeenCalledWith('company');
    expect(show).toHaveBeenCalledWith('blob:logo-1');
    stop();
    expect(revoked).toEqual(['blob:logo-1']);
  });

  it('shows nothing when no logo is set or the read fails', async () => {
    const { urls, revoked } = fakeUrls();
    const show = vi.fn();
    loadLogo(async () => null, 'footer', show, urls)();
    const stop = loadLogo(async () => Promise.reject(new Error('offline')), 'footer', show, urls);
    await flush();
    stop();
    expect(show).not.toHaveBeenCalled();
    expect(revoked).toEqual([]);
  });

  it('drops an answer that arrives after the view went away', async () => {
    const { urls, revoked } = fakeUrls();
    const show = vi.fn();
    let answer: (b: Blob) => void = () => {};
    const stop = loadLogo(() => new Promise<Blob>((r) => (answer = r)), 'company', show, urls);
    stop();
    answer(new Blob(['x']));
    await flush();
    expect(show).not.toHaveBeenCalled();
    expect(revoked).toEqual([]);
  });
});

describe('logo changes', () => {
  it('reach every listener until it unsubscribes', async () => {
    const { logosChanged, onLogosChanged } = await import('../../lib/logoChanges');
    const heard = vi.fn();
    const off = onLogosChanged(heard);
    logosChanged();
    off();
    logosChanged();
    expect(heard).toHaveBeenCalledTimes(1);
  });
});
