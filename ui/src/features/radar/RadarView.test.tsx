// Markup tests for the Radar board and the nav indicator (server-rendered, no DOM): one h1, the
// overall colour in words, page time, Updated <ago>/Never, the aria-busy Refresh and its 429
// notice in a live region; the sign-in-needed panel (no link, last board kept below), the stale
// "Showing the last board" marker, the empty never-read state, loading and load errors; metrics,
// dispatcher cards with queue tables (headers, deep queues marked in words), PAPA, XCenter.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { RadarSnapshot } from '../../transport/types';
import { radarIndicator } from './radar';
import type { RadarFeedState } from './radarFeed';
import { RadarIndicatorView } from './RadarNavIndicator';
import { RadarBoard } from './RadarView';

const NOW = Date.parse('2026-12-03T18:02:00.000Z');
const board = (extra: Partial<RadarSnapshot> = {}): RadarSnapshot => ({
  color: 'red',
  dispatchers: [
    { name: 'DISPATCH-01', tone: 'green', lastScheduleDate: '12/03/2026 14:05', lastPubSubDate: '12/03/2026 14:04', queues: [{ name: 'INBOUND', depth: 12 }, { name: 'RETRY', depth: 1250 }] },
    { name: 'DISPATCH-02', tone: 'magenta', lastScheduleDate: '', lastPubSubDate: '12/03/2026 13:00', queues: [] },
  ],
  papa: [{ name: 'PAPA-AUTH', depth: 5 }, { name: 'PAPA-<b>X</b>', depth: 100 }],
  metrics: [
    { label: 'Card Services', value: '1,204', tone: 'green' },
    { label: 'EDW', value: null, tone: 'unknown' },
  ],
  xcenter: { ok: 3410, pending: null },
  currentTime: '12/03/2026 14:05:31',
  lastUpdated: NOW - 2 * 60_000,
  signInRequired: false,
  error: null,
  ...extra,
});
const neverRead = (extra: Partial<RadarSnapshot> = {}) =>
  board({ color: 'unknown', dispatchers: [], papa: [], metrics: [], xcenter: { ok: null, pending: null }, currentTime: null, lastUpdated: 0, ...extra });
const state = (extra: Partial<RadarFeedState> = {}): RadarFeedState => ({ data: null, loading: false, error: null, refreshing: false, notice: null, ...extra });
const render = (s: RadarFeedState) => renderToStaticMarkup(<RadarBoard state={s} now={NOW} onRefresh={() => {}} onRetry={() => {}} />);

describe('RadarBoard', () => {
  it('first load: one h1, a loading state, the live region, no board', () => {
    const html = render(state({ loading: true }));
    expect(html.match(/<h1/g)).toHaveLength(1);
    expect(html).toContain('<h1 class="view-title">Radar</h1>');
    expect(html).toMatch(/role="status" data-testid="radar-loading">Loading the Radar…/);
    expect(html).toMatch(/role="status" data-testid="radar-notice"/);
    expect(html).not.toContain('data-testid="radar-board"');
  });

  it('header: overall colour in words, page time, Updated <ago>, Refresh with aria-busy and the 429 notice', () => {
    const html = render(state({ data: board() }));
    expect(html).toMatch(/data-testid="radar-overall"><span class="visually-hidden">Overall: <\/span><span class="radar-tone radar-tone-red" data-color="red" data-testid="radar-color"><span class="radar-dot" aria-hidden="true"><\/span>Red</);
    expect(html).toMatch(/data-testid="radar-page-time">Page time 12\/03\/2026 14:05:31</);
    expect(html).toMatch(/data-testid="radar-updated">Updated 2 min ago</);
    expect(html).toMatch(/aria-busy="false"[^>]*data-testid="radar-refresh"/);
    const running = render(state({ data: board(), refreshing: true }));
    expect(running).toMatch(/aria-busy="true" disabled=""[^>]*data-testid="radar-refresh"[^]*Refreshing…/);
    const limited = render(state({ data: board(), notice: { text: 'Refreshed recently — try again in 41 s', tone: 'warn' } }));
    expect(limited).toMatch(/role="status" data-testid="radar-notice">Refreshed recently — try again in 41 s</);
  });

  it('the board: metrics with — for no figure, dispatcher cards, queue tables with headers, deep queues in words', () => {
    const html = render(state({ data: board() }));
    expect(html).toMatch(/data-testid="radar-board" data-stale="false"/);
    expect(html).toMatch(/Card Services<\/div><div class="stat-n">1,204<\/div>[^]*?>Green</);
    expect(html).toMatch(/EDW<\/div><div class="stat-n">—<\/div>[^]*?>Unknown</);
    const cards = [...html.matchAll(/<h3 class="status-card-title">([^<]+)<\/h3>/g)].map((m) => m[1]);
    expect(cards).toEqual(['DISPATCH-01', 'DISPATCH-02']);
    expect(html).toMatch(/DISPATCH-01[^]*?>Green<[^]*?Last schedule<\/dt><dd>12\/03\/2026 14:05<\/dd>[^]*?Last pub-sub<\/dt><dd>12\/03\/2026 14:04<\/dd>/);
    expect(html).toMatch(/DISPATCH-02[^]*?>Magenta<[^]*?Last schedule<\/dt><dd>—<\/dd>[^]*?No queues listed\./);
    expect(html).toMatch(/<caption class="visually-hidden">Queues of DISPATCH-01<\/caption><thead><tr><th scope="col">Queue<\/th><th scope="col" class="num">Depth<\/th>/);
    expect(html).toMatch(/<th scope="row" class="radar-queue-name">INBOUND<\/th><td class="num">12<\/td>/);
    expect(html).toMatch(/RETRY<\/th><td class="num radar-depth-large" data-large="true"><span class="radar-depth-mark" aria-hidden="true">▲ <\/span>1,250<span class="visually-hidden"> \(deep queue, 100 or more\)<\/span>/);
    expect(html).toMatch(/data-testid="radar-papa"[^]*?<th scope="col">Message type<\/th>[^]*?PAPA-AUTH[^]*?>5</);
    expect(html).toContain('PAPA-&lt;b&gt;X&lt;/b&gt;'); // text, never HTML
    expect(html).toMatch(/data-testid="radar-xcenter-ok"[^]*?>3,410<[^]*?data-testid="radar-xcenter-pending"[^]*?>—</);
    expect(html.match(/<h2 /g)).toHaveLength(4);
  });

  it('sign-in needed: a clear panel without any link, the last board still below and marked stale', () => {
    const html = render(state({ data: board({ signInRequired: true }) }));
    expect(html).toMatch(/role="alert" data-testid="radar-signin"[^]*Radar sign-in needed: sign in to the CW Dashboard on the Relay server PC\./);
    expect(html).not.toMatch(/<a |https?:/);
    expect(html).toMatch(/data-testid="radar-board" data-stale="true"/);
    const none = render(state({ data: neverRead({ signInRequired: true }) }));
    expect(none).toContain('data-testid="radar-signin"');
    expect(none).not.toContain('data-testid="radar-board"');
    expect(none).not.toContain('data-testid="radar-empty"');
    expect(none).toMatch(/data-testid="radar-updated">Never updated</);
  });

  it('on the desktop server PC the sign-in panel offers the sign-in window, never a link', () => {
    const signIn = { onOpen: () => {}, onFinish: () => {}, busy: false, message: 'Signed in: the Radar is read with this session.' };
    const html = renderToStaticMarkup(
      <RadarBoard state={state({ data: neverRead({ signInRequired: true }) })} now={NOW} onRefresh={() => {}} onRetry={() => {}} signIn={signIn} />,
    );
    expect(html).toMatch(/data-testid="radar-signin-open">Open the Radar sign-in window</);
    expect(html).toMatch(/data-testid="radar-signin-finish">I have signed in — use this session</);
    expect(html).toMatch(/role="status" data-testid="radar-signin-message">Signed in/);
    expect(html).not.toMatch(/<a |https?:/);
    expect(render(state({ data: neverRead({ signInRequired: true }) }))).not.toContain('radar-signin-open');
  });

  it('sign-in needed names the way to sign in from here: the window on the server PC, the command elsewhere', () => {
    const at = (place: 'server-pc' | 'relay-web' | 'direct' | 'laptop') =>
      renderToStaticMarkup(<RadarBoard state={state({ data: neverRead({ signInRequired: true }) })} now={NOW} onRefresh={() => {}} onRetry={() => {}} place={place} />);
    for (const place of ['relay-web', 'direct', 'laptop'] as const) {
      expect(at(place)).toMatch(/data-testid="radar-signin-path">Ask the administrator of the Relay server to run <code>relay radar --data-dir DATA sign-in<\/code> on the server PC/);
    }
    expect(at('server-pc')).toMatch(/data-testid="radar-signin-path">Use “Open the Radar sign-in window” below/);
    expect(at('server-pc')).not.toContain('relay radar');
  });

  it('an error with data shows the last board, marked stale', () => {
    const html = render(state({ data: board({ error: 'Unrecognised Radar page' }) }));
    expect(html).toMatch(/data-testid="radar-stale"[^]*Showing the last board: Unrecognised Radar page/);
    expect(html).toMatch(/data-testid="radar-board" data-stale="true"/);
    const bare = render(state({ data: neverRead({ error: 'HTTP 502' }) }));
    expect(bare).toContain('The Radar could not be read: HTTP 502');
    expect(bare).not.toContain('data-testid="radar-empty"');
  });

  it('never read: an empty state, Never updated, no board', () => {
    const html = render(state({ data: neverRead() }));
    expect(html).toMatch(/data-testid="radar-empty"[^]*No Radar board yet/);
    expect(html).toMatch(/data-testid="radar-updated">Never updated</);
    expect(html).not.toContain('data-testid="radar-board"');
  });

  it('a load error: inline with a retry, and the last board kept when there is one', () => {
    const html = render(state({ error: 'Cannot reach the Relay server.' }));
    expect(html).toMatch(/role="alert" data-testid="radar-load-error"[^]*Could not load the Radar\. Cannot reach the Relay server\./);
    expect(html).toContain('data-testid="radar-retry"');
    const stale = render(state({ data: board(), error: 'Cannot reach the Relay server.' }));
    expect(stale).toContain('showing the last board received');
    expect(stale).toMatch(/data-testid="radar-board" data-stale="true"/);
  });
});

describe('RadarIndicatorView', () => {
  it('the colour in words for screen readers and on screen, the queue warning, nothing before data', () => {
    expect(renderToStaticMarkup(<RadarIndicatorView indicator={null} />)).toBe('');
    const red = renderToStaticMarkup(<RadarIndicatorView indicator={radarIndicator(board({ papa: [] , dispatchers: [] }))} />);
    expect(red).toMatch(/data-color="red" data-queue-warning="false" title="Radar: red"><span class="visually-hidden">Radar: red<\/span>/);
    expect(red).toMatch(/aria-hidden="true"><span class="radar-dot"><\/span>red</);
    expect(red).not.toContain('radar-queue-warning');
    const deep = renderToStaticMarkup(<RadarIndicatorView indicator={radarIndicator(board())} />);
    expect(deep).toMatch(/title="Radar: red, queue warning"><span class="visually-hidden">Radar: red, queue warning<\/span>/);
    expect(deep).toContain('data-testid="radar-queue-warning">▲ queue<');
    const signin = renderToStaticMarkup(<RadarIndicatorView indicator={radarIndicator(board({ signInRequired: true, papa: [], dispatchers: [] }))} />);
    expect(signin).toMatch(/>Radar: sign-in needed<[^]*radar-tone-unknown/);
  });
});
