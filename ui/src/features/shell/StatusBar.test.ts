import { describe, expect, it } from 'vitest';
import { COUNTED } from './StatusBar';

describe('status-bar counts', () => {
  it('counts only pending alarms on the Alerts tab (done and dismissed ones are history)', () => {
    const alarms = [
      { id: 'a', created: '', updated: '', status: 'pending' },
      { id: 'b', created: '', updated: '', status: 'done' },
      { id: 'c', created: '', updated: '', status: 'dismissed' },
      { id: 'd', created: '', updated: '', status: 'pending' },
    ];
    const counts = COUNTED.alerts?.counts;
    expect(counts).toBeDefined();
    expect(alarms.filter(counts!).map((a) => a.id)).toEqual(['a', 'd']);
  });
  it('counts every record on the other tabs', () => {
    for (const tab of ['compose', 'oncall', 'notes', 'people', 'servers'] as const) expect(COUNTED[tab]?.counts).toBeUndefined();
  });
});
