// The Radar rules: the normalizer, board detection, the queue-warning threshold, the sidebar
// indicator, the warning/critical toast decision across polls, and the Updated text.
import { describe, expect, it } from 'vitest';
import type { RadarColor, RadarSnapshot } from '../../transport/types';
import {
  EMPTY_TOAST_MEMORY,
  QUEUE_WARNING_DEPTH,
  countText,
  deepQueues,
  hasBoard,
  isLargeDepth,
  neverRead,
  normalizeRadar,
  radarIndicator,
  radarToast,
  radarUpdatedText,
  type ToastMemory,
} from './radar';

const NOW = Date.parse('2026-12-03T18:02:00.000Z');
const snap = (extra: Partial<RadarSnapshot> = {}): RadarSnapshot => ({
  color: 'green',
  dispatchers: [{ name: 'DISPATCH-01', tone: 'green', lastScheduleDate: '12/03/2026 14:05', lastPubSubDate: '12/03/2026 14:05', queues: [{ name: 'INBOUND', depth: 12 }] }],
  papa: [{ name: 'PAPA-AUTH', depth: 5 }],
  metrics: [{ label: 'Card Services', value: '1,204', tone: 'green' }],
  xcenter: { ok: 3410, pending: 17 },
  currentTime: '12/03/2026 14:05:31',
  lastUpdated: NOW - 60_000,
  signInRequired: false,
  error: null,
  ...extra,
});
const empty = (extra: Partial<RadarSnapshot> = {}) =>
  snap({ color: 'unknown', dispatchers: [], papa: [], metrics: [], xcenter: { ok: null, pending: null }, currentTime: null, lastUpdated: 0, ...extra });

describe('normalizeRadar', () => {
  it('keeps a well-formed snapshot as it is', () => {
    expect(normalizeRadar(snap())).toEqual(snap());
  });
  it('makes a partial or odd answer safe: unknown colours, missing lists, bad counts', () => {
    const n = normalizeRadar({ color: 'purple', dispatchers: [{ name: 'D', tone: 3, queues: [{ name: 'Q', depth: 'x' }] }], metrics: [{ label: 'EDW', value: null }], lastUpdated: 'soon', error: '' });
    expect(n.color).toBe('unknown');
    expect(n.dispatchers[0]).toEqual({ name: 'D', tone: 'unknown', lastScheduleDate: '', lastPubSubDate: '', queues: [{ name: 'Q', depth: 0 }] });
    expect(n.metrics[0]).toEqual({ label: 'EDW', value: null, tone: 'unknown' });
    expect(n.papa).toEqual([]);
    expect(n.xcenter).toEqual({ ok: null, pending: null });
    expect(n.lastUpdated).toBe(0);
    expect(n.error).toBeNull();
    expect(n.signInRequired).toBe(false);
    expect(normalizeRadar(null)).toEqual(empty());
  });
});

describe('board and never-read', () => {
  it('a board needs some signal; the server before its first read has none', () => {
    expect(hasBoard(snap())).toBe(true);
    expect(hasBoard(empty())).toBe(false);
    expect(hasBoard(empty({ xcenter: { ok: 0, pending: null } }))).toBe(true);
    expect(hasBoard(null)).toBe(false);
    expect(neverRead(empty())).toBe(true);
    expect(neverRead(empty({ signInRequired: true }))).toBe(true);
    expect(neverRead(snap())).toBe(false);
  });
});

describe('queue warning', () => {
  it(`a depth of ${QUEUE_WARNING_DEPTH} or more is large, in dispatcher queues and PAPA alike`, () => {
    expect(QUEUE_WARNING_DEPTH).toBe(100);
    expect(isLargeDepth(99)).toBe(false);
    expect(isLargeDepth(100)).toBe(true);
    expect(deepQueues(snap())).toEqual([]);
    const deep = snap({ papa: [{ name: 'PAPA-AUTH', depth: 250 }], dispatchers: [{ ...snap().dispatchers[0], queues: [{ name: 'INBOUND', depth: 100 }, { name: 'OUT', depth: 3 }] }] });
    expect(deepQueues(deep).map((q) => q.name)).toEqual(['INBOUND', 'PAPA-AUTH']);
    expect(deepQueues(null)).toEqual([]);
  });
});

describe('radarIndicator', () => {
  it('says the colour in words, with the queue warning when a queue is deep', () => {
    expect(radarIndicator(null)).toBeNull();
    expect(radarIndicator(snap({ color: 'red' }))).toEqual({ color: 'red', text: 'red', queueWarning: false, label: 'Radar: red' });
    expect(radarIndicator(snap({ color: 'yellow', papa: [{ name: 'P', depth: 140 }] }))!.label).toBe('Radar: yellow, queue warning');
    expect(radarIndicator(empty())!.label).toBe('Radar: unknown');
    expect(radarIndicator(snap({ signInRequired: true }))!.label).toBe('Radar: sign-in needed');
  });
});

describe('radarToast', () => {
  /** Feeds colours poll by poll and returns the toast messages (null where none). */
  function run(colors: (RadarColor | 'signin')[]): (string | null)[] {
    let m: ToastMemory = EMPTY_TOAST_MEMORY;
    return colors.map((c) => {
      const r = radarToast(m, c === 'signin' ? snap({ color: 'green', signInRequired: true }) : snap({ color: c }));
      m = r.memory;
      return r.toast ? `${r.toast.kind}: ${r.toast.message}` : null;
    });
  }

  it('never on the first poll, whatever the colour', () => {
    expect(run(['red'])).toEqual([null]);
    expect(run(['magenta', 'magenta'])).toEqual([null, null]);
  });
  it('worsening to yellow is a warning, to red or magenta a critical', () => {
    expect(run(['green', 'yellow', 'red', 'magenta'])).toEqual([null, 'warning: Radar warning: yellow', 'error: Radar critical: red', 'error: Radar critical: magenta']);
    expect(run(['green', 'magenta'])).toEqual([null, 'error: Radar critical: magenta']);
  });
  it('never when it improves or stays', () => {
    expect(run(['magenta', 'red', 'yellow', 'green', 'green'])).toEqual([null, null, null, null, null]);
    expect(run(['green', 'red', 'red', 'red'])).toEqual([null, 'error: Radar critical: red', null, null]);
  });
  it('no repeat for the same colour until the board is green again', () => {
    expect(run(['green', 'red', 'yellow', 'red'])).toEqual([null, 'error: Radar critical: red', null, null]);
    expect(run(['green', 'red', 'green', 'red'])).toEqual([null, 'error: Radar critical: red', null, 'error: Radar critical: red']);
  });
  it('never while sign-in is needed, and an unknown colour is not compared', () => {
    expect(run(['green', 'signin', 'signin'])).toEqual([null, null, null]);
    expect(run(['signin', 'red'])).toEqual([null, null]); // the first real poll
    expect(run(['green', 'unknown', 'red'])).toEqual([null, null, 'error: Radar critical: red']);
    expect(run(['unknown', 'yellow'])).toEqual([null, null]);
  });
});

describe('text', () => {
  it('Updated <ago>, or Never updated when the server has not read the page', () => {
    expect(radarUpdatedText(NOW - 120_000, NOW)).toBe('Updated 2 min ago');
    expect(radarUpdatedText(NOW - 2_000, NOW)).toBe('Updated just now');
    expect(radarUpdatedText(0, NOW)).toBe('Never updated');
  });
  it('counts with thousands separators, or an em dash when absent', () => {
    expect(countText(3410)).toBe('3,410');
    expect(countText(0)).toBe('0');
    expect(countText(null)).toBe('—');
  });
});
