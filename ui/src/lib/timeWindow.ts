// On-call time-window parser: decides whether a free-text window ("Mon-Fri 8am-5pm",
// "24/7", "Sat 22:00 to 06:00", "business hours") is active at a given local time.

export interface ParsedWindow {
  always: boolean;
  /** Days of week (0 = Sunday) the window applies to; null = every day. */
  days: Set<number> | null;
  /** Minute-of-day ranges; end <= start means the range crosses midnight. */
  ranges: { start: number; end: number }[];
}

const DAY_WORDS: [RegExp, number][] = [
  [/^sun(day)?s?$/, 0],
  [/^mon(day)?s?$/, 1],
  [/^tue?s?(day)?s?$/, 2],
  [/^wed(nesday)?s?$/, 3],
  [/^thu?r?s?(day)?s?$/, 4],
  [/^fri(day)?s?$/, 5],
  [/^sat(urday)?s?$/, 6],
];

function dayOf(word: string): number | null {
  const w = word.toLowerCase().replace(/\./g, '');
  for (const [re, d] of DAY_WORDS) if (re.test(w)) return d;
  return null;
}

const TIME = String.raw`(\d{1,2}:\d{2}|\d{3,4}|\d{1,2}|noon|midnight)\s*([ap]\.?m?\.?(?![a-z]))?`;
const SEP = String.raw`\s*(?:-|–|—|\bto\b|\bthrough\b|\bthru\b|\btil\b|\buntil\b)\s*`;
const RANGE_RE = new RegExp(TIME + SEP + TIME, 'gi');

function toMinutes(num: string, mer: string | undefined): { min: number; hasMer: boolean } | null {
  const n = num.toLowerCase();
  if (n === 'noon') return { min: 12 * 60, hasMer: true };
  if (n === 'midnight') return { min: 0, hasMer: true };
  let h: number;
  let m = 0;
  if (n.includes(':')) {
    const [a, b] = n.split(':');
    h = Number(a);
    m = Number(b);
  } else if (n.length >= 3) {
    h = Number(n.slice(0, n.length - 2));
    m = Number(n.slice(-2));
  } else h = Number(n);
  if (!Number.isFinite(h) || !Number.isFinite(m) || m > 59 || h > 24) return null;
  const mr = mer?.toLowerCase()[0];
  if (mr) {
    if (h > 12 || h === 0) return null;
    if (mr === 'a') h = h === 12 ? 0 : h;
    else h = h === 12 ? 12 : h + 12;
  }
  return { min: (h % 24) * 60 + m + (h === 24 ? 0 : 0), hasMer: Boolean(mr) };
}

export function parseTimeWindow(text: string | undefined | null): ParsedWindow | null {
  const raw = (text ?? '').trim().toLowerCase();
  if (!raw) return null;
  if (/\b24\s*\/\s*7\b|\balways\b|\brotating\b|\b24x7\b/.test(raw)) return { always: true, days: null, ranges: [] };
  let rest = raw;
  let days: Set<number> | null = null;
  const ranges: { start: number; end: number }[] = [];
  const addDays = (list: number[]) => {
    days ??= new Set();
    for (const d of list) days.add(d);
  };
  if (/\bbusiness hours\b/.test(rest)) {
    addDays([1, 2, 3, 4, 5]);
    ranges.push({ start: 8 * 60, end: 17 * 60 });
    rest = rest.replace(/\bbusiness hours\b/g, ' ');
  }
  rest = rest.replace(RANGE_RE, (_m, n1: string, m1: string | undefined, n2: string, m2: string | undefined) => {
    const a = toMinutes(n1, m1);
    const b = toMinutes(n2, m2);
    if (!a || !b) return ' ';
    let start = a.min;
    const end = b.min;
    // "8-5pm": the start borrows the end's meridiem when that keeps start before end.
    if (!a.hasMer && b.hasMer && !n1.includes(':') && Number(n1) <= 12) {
      const isPm = (m2 ?? '').toLowerCase().startsWith('p');
      const h = Number(n1) % 12;
      const pmStart = (h + 12) * 60;
      const amStart = h * 60;
      start = isPm ? (pmStart < end ? pmStart : amStart) : amStart;
    }
    ranges.push({ start, end });
    return ' ';
  });
  if (/\bweekdays?\b/.test(rest)) addDays([1, 2, 3, 4, 5]);
  if (/\bweekends?\b|\bwknd\b/.test(rest)) addDays([6, 0]);
  if (/\bdaily\b|\beveryday\b|\bevery day\b/.test(rest)) addDays([0, 1, 2, 3, 4, 5, 6]);
  const dayRange = /([a-z.]+)\s*(?:-|–|—|\bto\b|\bthrough\b|\bthru\b)\s*([a-z.]+)/g;
  rest = rest.replace(dayRange, (m, a: string, b: string) => {
    const da = dayOf(a);
    const db = dayOf(b);
    if (da === null || db === null) return m;
    const list: number[] = [];
    for (let d = da; ; d = (d + 1) % 7) {
      list.push(d);
      if (d === db) break;
    }
    addDays(list);
    return ' ';
  });
  for (const w of rest.split(/[^a-z.]+/)) {
    const d = w ? dayOf(w) : null;
    if (d !== null) addDays([d]);
  }
  if (!days && ranges.length === 0) return null;
  return { always: false, days, ranges };
}

function dayIncluded(days: Set<number> | null, d: number): boolean {
  return days === null || days.has(d);
}

export function isWindowActive(w: ParsedWindow | null, now: Date): boolean {
  if (!w) return false;
  if (w.always) return true;
  const day = now.getDay();
  const prev = (day + 6) % 7;
  const min = now.getHours() * 60 + now.getMinutes();
  if (w.ranges.length === 0) return dayIncluded(w.days, day);
  return w.ranges.some(({ start, end }) => {
    if (start < end) return dayIncluded(w.days, day) && min >= start && min < end;
    if (start === end) return dayIncluded(w.days, day);
    // Crosses midnight: the evening part belongs to the listed day, the morning part to the next day.
    return (dayIncluded(w.days, day) && min >= start) || (dayIncluded(w.days, prev) && min < end);
  });
}

export function isActiveNow(text: string | undefined | null, now: Date = new Date()): boolean {
  return isWindowActive(parseTimeWindow(text), now);
}
