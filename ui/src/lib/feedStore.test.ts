// The shared feed store: set patches and notifies, unsubscribe stops notifications, and the
// load sequencing lets only the newest load (not overtaken by dropLoads) apply.
import { describe, expect, it, vi } from 'vitest';
import { FeedStore } from './feedStore';

class Probe extends FeedStore<{ a: number; b: string }> {
  constructor() {
    super({ a: 0, b: 'x' });
  }
  patch(p: Partial<{ a: number; b: string }>) {
    this.set(p);
  }
  begin() {
    return this.beginLoad();
  }
  drop() {
    this.dropLoads();
  }
}

describe('FeedStore', () => {
  it('set merges the patch into a new snapshot and notifies subscribers until they leave', () => {
    const s = new Probe();
    const before = s.getSnapshot();
    const l = vi.fn();
    const off = s.subscribe(l);
    s.patch({ a: 1 });
    expect(s.getSnapshot()).toEqual({ a: 1, b: 'x' });
    expect(s.getSnapshot()).not.toBe(before);
    expect(l).toHaveBeenCalledTimes(1);
    off();
    s.patch({ b: 'y' });
    expect(l).toHaveBeenCalledTimes(1);
  });

  it('only the newest load is current; dropLoads makes every load in flight moot', () => {
    const s = new Probe();
    const first = s.begin();
    const second = s.begin();
    expect(first()).toBe(false);
    expect(second()).toBe(true);
    s.drop();
    expect(second()).toBe(false);
  });
});
