// @vitest-environment jsdom
// Alert threads in the UI (./alertThreads): rows grouped into threads (rows from before threads
// are single-send threads), the draft that continues a thread (UPDATE #N+1 from the server's
// number, the last send's content and times back in their zone), and the fields a send stores.
import { describe, expect, it } from 'vitest';
import { newDraft, type AlertHistory } from './alerts';
import { continueDraft, groupThreads, localInputIn, sendFields, sendLabel, threadFilter, threadOf } from './alertThreads';

const row = (id: string, created: string, extra: Partial<AlertHistory> = {}): AlertHistory =>
  ({ id, created, updated: created, subject: id, severity: 'ISSUE', ...extra }) as AlertHistory;

describe('alert threads', () => {
  it('groups sends into threads in order, the most recently updated thread first', () => {
    const rows = [
      row('b2', '2026-12-07 10:05:00.000Z', { threadId: 'b1', updateNumber: 2 }),
      row('a1', '2026-12-07 09:00:00.000Z', { threadId: 'a1', updateNumber: 0 }),
      row('b1', '2026-12-07 08:00:00.000Z', { threadId: 'b1', updateNumber: 0 }),
      row('old', '2026-01-01 08:00:00.000Z'),
      row('b3', '2026-12-07 08:30:00.000Z', { threadId: 'b1', updateNumber: 1 }),
    ];
    const threads = groupThreads(rows);
    expect(threads.map((t) => t.id)).toEqual(['b1', 'a1', 'old']);
    expect(threads[0].sends.map((s) => s.id)).toEqual(['b1', 'b3', 'b2']);
    expect(threads[0].last.id).toBe('b2');
    expect(threads[0].sends.map(sendLabel)).toEqual(['Original', 'UPDATE #1', 'UPDATE #2']);
  });

  it('reads a row from before threads as its own single-send thread', () => {
    const old = row('old000000000001', '2026-01-01 08:00:00.000Z');
    expect(threadOf(old)).toBe('old000000000001');
    expect(groupThreads([old])).toEqual([{ id: 'old000000000001', sends: [old], last: old }]);
    expect(sendLabel(old)).toBe('Original');
  });

  it('continues a thread from its last send as UPDATE #N+1 with its content and times', () => {
    const last = row('b2', '2026-12-07 10:05:00.000Z', {
      threadId: 'b1', updateNumber: 2, subject: 'VPN down', severity: 'MAINTENANCE', sender: 'NOC', recipient: 'Ops',
      bodyHtml: 'Working on it', eventStart: '2026-12-07 15:00:00.000Z', eventEnd: '', timeZone: 'America/Chicago',
    });
    const draft = continueDraft(last, newDraft());
    expect(draft).toMatchObject({
      threadId: 'b1', update: 3, subject: 'VPN down', severity: 'MAINTENANCE', sender: 'NOC', recipient: 'Ops',
      body: 'Working on it', start: '2026-12-07T09:00', end: '', timeZone: 'America/Chicago',
    });
    // A legacy single send continues its own thread as UPDATE #1.
    expect(continueDraft(row('old', '2026-01-01 08:00:00.000Z'), newDraft())).toMatchObject({ threadId: 'old', update: 1 });
  });

  it('a send stores its thread and its times as instants in the zone they were entered in', () => {
    const draft = { ...newDraft(), threadId: 'b1', start: '2026-12-07T09:00', end: '', timeZone: 'America/Chicago' };
    expect(sendFields(draft)).toEqual({ threadId: 'b1', eventStart: '2026-12-07 15:00:00.000Z', eventEnd: '', timeZone: 'America/Chicago' });
    expect(localInputIn('2026-12-07 15:00:00.000Z', 'UTC')).toBe('2026-12-07T15:00');
    expect(localInputIn('', 'UTC')).toBe('');
  });

  it('filters a thread by its id, quotes escaped', () => {
    expect(threadFilter('b1')).toBe("threadId = 'b1' || id = 'b1'");
    expect(threadFilter("x'y")).toBe("threadId = 'x\\'y' || id = 'x\\'y'");
  });
});
