// The status bar's request to show System health reaches a mounted panel at once, and a panel
// that mounts later (Settings loads on first visit) exactly once.
import { describe, expect, it } from 'vitest';
import { onSystemHealthRequest, requestSystemHealth } from './openSystemHealth';

describe('requestSystemHealth', () => {
  it('waits for a panel when none is mounted, then is delivered once', () => {
    requestSystemHealth();
    let opened = 0;
    const stop = onSystemHealthRequest(() => opened++);
    expect(opened).toBe(1);
    stop();
    const again = onSystemHealthRequest(() => opened++);
    expect(opened).toBe(1);
    again();
  });

  it('a mounted panel is told at once', () => {
    let opened = 0;
    const stop = onSystemHealthRequest(() => opened++);
    requestSystemHealth();
    requestSystemHealth();
    expect(opened).toBe(2);
    stop();
  });
});
