import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubNonSecurePage } from '../../lib/nonSecureTest';
import {
  DASHBOARDS_KEY,
  DEFAULT_NAME,
  MAX_DASHBOARDS,
  addDashboard,
  checkName,
  checkUrl,
  isDashboardId,
  isDynatraceHost,
  loadDashboards,
  newDashboardId,
  parseEnvelope,
  removeDashboard,
  saveDashboards,
  serializeEnvelope,
  subscribeDashboards,
  updateDashboard,
  type DynatraceDashboard,
} from './dashboards';

const ID1 = 'dt_00000000-0000-4000-8000-000000000001';
const ID2 = 'dt_00000000-0000-4000-8000-000000000002';
const URL1 = 'https://abc12345.live.dynatrace.com/#dashboard;id=1';
const ids = () => {
  let n = 0;
  return () => `dt_00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
};

function memoryStorage(initial: Record<string, string> = {}) {
  const data = new Map(Object.entries(initial));
  return {
    getItem: (k: string) => data.get(k) ?? null,
    setItem: vi.fn((k: string, v: string) => void data.set(k, v)),
    data,
  };
}

const urlError = (raw: unknown) => {
  const r = checkUrl(raw);
  return r.ok ? null : r.error.message;
};

describe('checkUrl', () => {
  it.each([
    ['https://dynatrace.com/', 'https://dynatrace.com/'],
    ['https://abc12345.live.dynatrace.com/#dashboard;id=1', 'https://abc12345.live.dynatrace.com/#dashboard;id=1'],
    ['  https://ABC.apps.Dynatrace.com/ui/apps/dashboards  ', 'https://abc.apps.dynatrace.com/ui/apps/dashboards'],
    ['https://abc.apps.dynatrace.com:443/x', 'https://abc.apps.dynatrace.com/x'],
    ['https://a-b.sprint.dynatracelabs.dynatrace.com/?q=1', 'https://a-b.sprint.dynatracelabs.dynatrace.com/?q=1'],
  ])('accepts %s', (raw, href) => {
    expect(checkUrl(raw)).toEqual({ ok: true, value: href });
  });

  it.each(['', '   ', 'not a url', 'abc.live.dynatrace.com/dash', '//abc.live.dynatrace.com/', 'https://', null, undefined, 42])(
    'says "Enter a valid URL." for %j',
    (raw) => {
      expect(urlError(raw)).toBe('Enter a valid URL.');
      const r = checkUrl(raw);
      expect(!r.ok && r.error.field).toBe('url');
    },
  );

  it.each(['http://abc.live.dynatrace.com/', 'ftp://abc.live.dynatrace.com/', 'javascript:alert(1)', 'wss://abc.live.dynatrace.com/', 'data:text/html,hi'])(
    'requires https: %s',
    (raw) => {
      expect(urlError(raw)).toBe('The Dynatrace URL must use HTTPS.');
    },
  );

  it.each([
    'https://evildynatrace.com/',
    'https://dynatrace.com.evil.net/',
    'https://abc.live.dynatrace.com.evil.net/',
    'https://dynatrace.co/',
    'https://dynatrace.com.',
    'https://abc.dynatrace.com./',
    'https://dynatrace-com.example/',
    'https://xdynatrace.com/',
    'https://dynatrace.comm/',
    'https://abc.dynatrace.company/',
    'https://abcdynatrace.com/',
    'https://evil.net/abc.live.dynatrace.com',
    'https://evil.net/?u=https://abc.live.dynatrace.com',
    'https://evil.net#.dynatrace.com',
    'https://evil.net\\.dynatrace.com',
    'https://evil.net%2F.dynatrace.com/',
    'https://127.0.0.1/',
    'https://[::1]/',
    'https://dynatrace.com%00.evil.net/',
    'https://dyna\u0074race.com.evil.net/',
    'https://dуnatrace.com/', // Cyrillic у: punycoded, not dynatrace.com
  ])('refuses the lookalike host %s', (raw) => {
    const message = urlError(raw);
    // Some of these do not even parse as URLs; none may pass.
    expect(message).not.toBeNull();
    if (message !== 'Enter a valid URL.') expect(message).toBe('Enter a Dynatrace URL under dynatrace.com.');
  });

  it('refuses the obvious lookalikes with the domain message', () => {
    for (const raw of ['https://evildynatrace.com/', 'https://dynatrace.com.evil.net/', 'https://example.com/']) {
      expect(urlError(raw)).toBe('Enter a Dynatrace URL under dynatrace.com.');
    }
  });

  it('refuses credentials, with the host still under dynatrace.com', () => {
    expect(urlError('https://user:pw@abc.live.dynatrace.com/')).toBe('The Dynatrace URL must not contain a user name or password.');
    expect(urlError('https://user@abc.live.dynatrace.com/')).toBe('The Dynatrace URL must not contain a user name or password.');
    expect(urlError('https://abc.live.dynatrace.com@evil.net/')).not.toBeNull();
    expect(urlError('https://abc.live.dynatrace.com:pw@evil.net/')).not.toBeNull();
  });

  it('refuses an explicit non-default port', () => {
    expect(urlError('https://abc.live.dynatrace.com:8443/')).toBe('The Dynatrace URL must not name a port.');
    expect(urlError('https://abc.live.dynatrace.com:80/')).toBe('The Dynatrace URL must not name a port.');
  });

  it('refuses an over-long URL', () => {
    expect(urlError(`https://abc.live.dynatrace.com/${'a'.repeat(2100)}`)).toBe('The URL can be at most 2048 characters.');
  });
});

describe('isDynatraceHost', () => {
  it('compares whole labels', () => {
    expect(isDynatraceHost('dynatrace.com')).toBe(true);
    expect(isDynatraceHost('a.b.dynatrace.com')).toBe(true);
    expect(isDynatraceHost('evildynatrace.com')).toBe(false);
    expect(isDynatraceHost('dynatrace.com.evil.net')).toBe(false);
    expect(isDynatraceHost('.dynatrace.com')).toBe(false);
    expect(isDynatraceHost('a..dynatrace.com')).toBe(false);
    expect(isDynatraceHost('-a.dynatrace.com')).toBe(false);
  });
});

describe('checkName', () => {
  it('trims, defaults and limits to 100 characters', () => {
    expect(checkName('  Prod overview ')).toEqual({ ok: true, value: 'Prod overview' });
    expect(checkName('   ')).toEqual({ ok: true, value: DEFAULT_NAME });
    expect(checkName('')).toEqual({ ok: true, value: 'Dynatrace Dashboard' });
    expect(checkName('x'.repeat(100))).toEqual({ ok: true, value: 'x'.repeat(100) });
    expect(checkName(` ${'x'.repeat(100)} `)).toEqual({ ok: true, value: 'x'.repeat(100) });
    const long = checkName('x'.repeat(101));
    expect(long.ok).toBe(false);
    expect(!long.ok && long.error).toEqual({ code: 'name-too-long', field: 'name', message: 'The name can be at most 100 characters.' });
  });
});

describe('ids', () => {
  it('makes dt_<uuid> ids', () => {
    const id = newDashboardId();
    expect(id).toMatch(/^dt_[0-9a-f-]{36}$/);
    expect(isDashboardId(id)).toBe(true);
    expect(newDashboardId()).not.toBe(id);
    expect(isDashboardId('dt_nope')).toBe(false);
    expect(isDashboardId('00000000-0000-4000-8000-000000000001')).toBe(false);
  });

  it('makes them on a non-secure (http://) page, where crypto has no UUID generator', () => {
    stubNonSecurePage();
    try {
      const id = newDashboardId();
      expect(isDashboardId(id)).toBe(true);
      expect(id).toMatch(/^dt_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const added = addDashboard([], { name: 'Hosts', url: URL1 });
      expect(added.ok && isDashboardId(added.dashboard.id)).toBe(true);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe('add / update / remove', () => {
  it('adds with a new id, keeping the input list unchanged', () => {
    const list: DynatraceDashboard[] = [];
    const r = addDashboard(list, { name: ' Prod ', url: URL1 }, ids());
    expect(r).toEqual({ ok: true, dashboards: [{ id: ID1, name: 'Prod', url: URL1 }], dashboard: { id: ID1, name: 'Prod', url: URL1 } });
    expect(list).toEqual([]);
  });

  it('reports every field error at once', () => {
    const r = addDashboard([], { name: 'x'.repeat(101), url: 'http://abc.live.dynatrace.com/' });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.errors.map((e) => [e.field, e.message])).toEqual([
      ['name', 'The name can be at most 100 characters.'],
      ['url', 'The Dynatrace URL must use HTTPS.'],
    ]);
  });

  it('keeps at most 50', () => {
    let list: DynatraceDashboard[] = [];
    const next = ids();
    for (let i = 0; i < MAX_DASHBOARDS; i++) {
      const r = addDashboard(list, { name: `d${i}`, url: URL1 }, next);
      if (!r.ok) throw new Error('add failed');
      list = r.dashboards;
    }
    expect(list).toHaveLength(50);
    const r = addDashboard(list, { name: 'one more', url: URL1 }, next);
    expect(r).toEqual({ ok: false, errors: [{ code: 'too-many', field: null, message: 'At most 50 dashboards can be saved.' }] });
  });

  it('updates in place and refuses an unknown id or invalid input', () => {
    const list = [{ id: ID1, name: 'A', url: URL1 }, { id: ID2, name: 'B', url: URL1 }];
    const r = updateDashboard(list, ID2, { name: '', url: 'https://dynatrace.com/x' });
    expect(r.ok && r.dashboards).toEqual([list[0], { id: ID2, name: DEFAULT_NAME, url: 'https://dynatrace.com/x' }]);
    expect(list[1].name).toBe('B');
    const missing = updateDashboard(list, 'dt_00000000-0000-4000-8000-000000000009', { name: 'x', url: URL1 });
    expect(!missing.ok && missing.errors[0].code).toBe('not-found');
    const bad = updateDashboard(list, ID1, { name: 'x', url: 'https://evildynatrace.com/' });
    expect(!bad.ok && bad.errors[0].message).toBe('Enter a Dynatrace URL under dynatrace.com.');
  });

  it('removes by id', () => {
    const list = [{ id: ID1, name: 'A', url: URL1 }, { id: ID2, name: 'B', url: URL1 }];
    expect(removeDashboard(list, ID1)).toEqual({ ok: true, dashboards: [list[1]] });
    expect(list).toHaveLength(2);
    const r = removeDashboard(list, 'dt_x');
    expect(!r.ok && r.errors[0].code).toBe('not-found');
  });
});

describe('envelope', () => {
  const good = { id: ID1, name: 'A', url: URL1 };

  it('round-trips through the envelope', () => {
    const text = serializeEnvelope([good]);
    expect(JSON.parse(text)).toEqual({ schemaVersion: 1, dashboards: [good] });
    expect(parseEnvelope(text)).toEqual([good]);
  });

  it.each([
    ['missing', null],
    ['not JSON', '{nope'],
    ['an array', '[]'],
    ['null', 'null'],
    ['a string', '"x"'],
    ['no version', JSON.stringify({ dashboards: [good] })],
    ['another version', JSON.stringify({ schemaVersion: 2, dashboards: [good] })],
    ['version as text', JSON.stringify({ schemaVersion: '1', dashboards: [good] })],
    ['dashboards not a list', JSON.stringify({ schemaVersion: 1, dashboards: { 0: good } })],
  ])('yields [] for a bad envelope (%s)', (_, text) => {
    expect(parseEnvelope(text)).toEqual([]);
  });

  it('drops invalid and duplicate records silently, normalizing the rest', () => {
    const spy = vi.spyOn(console, 'warn');
    const err = vi.spyOn(console, 'error');
    const text = JSON.stringify({
      schemaVersion: 1,
      dashboards: [
        good,
        null,
        'x',
        [],
        { id: 'dt_bad', name: 'bad id', url: URL1 },
        { id: ID2, name: 'evil', url: 'https://evildynatrace.com/' },
        { id: ID2, name: 'http', url: 'http://abc.live.dynatrace.com/' },
        { id: ID2, name: 42, url: URL1 },
        { id: ID2, name: 'x'.repeat(101), url: URL1 },
        { id: ID1, name: 'duplicate', url: URL1 },
        { id: ID2, name: '  ', url: 'https://ABC.live.dynatrace.com/x', bounds: { width: 10 } },
      ],
    });
    expect(parseEnvelope(text)).toEqual([good, { id: ID2, name: DEFAULT_NAME, url: 'https://abc.live.dynatrace.com/x' }]);
    expect(spy).not.toHaveBeenCalled();
    expect(err).not.toHaveBeenCalled();
    spy.mockRestore();
    err.mockRestore();
  });

  it('keeps at most the first 50', () => {
    const next = ids();
    const many = Array.from({ length: 60 }, (_, i) => ({ id: next(), name: `d${i}`, url: URL1 }));
    const list = parseEnvelope(JSON.stringify({ schemaVersion: 1, dashboards: many }));
    expect(list).toHaveLength(50);
    expect(list[49].name).toBe('d49');
  });
});

describe('storage', () => {
  const unsubs: (() => void)[] = [];
  afterEach(() => unsubs.splice(0).forEach((u) => u()));

  it('loads and saves under relay:dynatrace-dashboards', () => {
    const s = memoryStorage();
    expect(loadDashboards(s)).toEqual([]);
    expect(saveDashboards([{ id: ID1, name: 'A', url: URL1 }], s)).toBe(true);
    expect(JSON.parse(s.data.get(DASHBOARDS_KEY)!)).toEqual({ schemaVersion: 1, dashboards: [{ id: ID1, name: 'A', url: URL1 }] });
    expect(loadDashboards(s)).toEqual([{ id: ID1, name: 'A', url: URL1 }]);
  });

  it('uses localStorage by default', () => {
    const s = memoryStorage();
    vi.stubGlobal('localStorage', s);
    try {
      expect(saveDashboards([{ id: ID1, name: 'A', url: URL1 }])).toBe(true);
      expect(s.setItem).toHaveBeenCalledWith(DASHBOARDS_KEY, expect.any(String));
      expect(loadDashboards()).toEqual([{ id: ID1, name: 'A', url: URL1 }]);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('survives a storage that throws', () => {
    const broken = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('quota');
      },
    };
    expect(loadDashboards(broken)).toEqual([]);
    expect(saveDashboards([], broken)).toBe(false);
    expect(saveDashboards([], null)).toBe(false);
  });

  it('tells subscribers about saves in this window and storage events for the key', () => {
    const cb = vi.fn();
    const target = new EventTarget();
    unsubs.push(subscribeDashboards(cb, target as unknown as Window));
    saveDashboards([], memoryStorage());
    expect(cb).toHaveBeenCalledTimes(1);
    target.dispatchEvent(Object.assign(new Event('storage'), { key: DASHBOARDS_KEY }));
    expect(cb).toHaveBeenCalledTimes(2);
    target.dispatchEvent(Object.assign(new Event('storage'), { key: 'other' }));
    expect(cb).toHaveBeenCalledTimes(2);
    target.dispatchEvent(Object.assign(new Event('storage'), { key: null })); // storage.clear()
    expect(cb).toHaveBeenCalledTimes(3);
    unsubs.pop()!();
    saveDashboards([], memoryStorage());
    expect(cb).toHaveBeenCalledTimes(3);
  });

  it('does not tell subscribers when the save failed', () => {
    const cb = vi.fn();
    unsubs.push(subscribeDashboards(cb, null));
    saveDashboards([], { getItem: () => null, setItem: () => { throw new Error('quota'); } });
    expect(cb).not.toHaveBeenCalled();
  });
});
