// A snapshot one view read reaches every subscribed view, until it unsubscribes.
import { describe, expect, it } from 'vitest';
import type { SystemHealth } from '../../transport/types';
import { onHealth, publishHealth } from './healthUpdates';

describe('health updates', () => {
  it('delivers each published snapshot to the subscribers', () => {
    const seen: string[] = [];
    const stop = onHealth((h) => seen.push(h.status));
    publishHealth({ status: 'degraded' } as SystemHealth);
    stop();
    publishHealth({ status: 'ok' } as SystemHealth);
    expect(seen).toEqual(['degraded']);
  });
});
