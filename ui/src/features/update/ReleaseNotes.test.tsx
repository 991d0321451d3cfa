// Markup tests for the release notes in Settings → About: hostile bodies (<script>, <img onerror>,
// javascript: links, raw HTML) come out as escaped text with no such element or attribute and no
// <a> at all; the Markdown subset as h3/h4/p/ul/ol/li/strong/em/code/pre; each release with its
// version, title, local date and the "This version" badge; only the newest body open; "Last
// checked"; the empty state; the feature detection of the bridge method.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { EMPTY_TEXT, MarkdownBody, ReleaseNotes, formatCheckedAt, formatReleaseDate, releaseNotesSource, type ReleaseNote, type ReleaseNotesList } from './ReleaseNotes';

const note = (patch: Partial<ReleaseNote> = {}): ReleaseNote => ({ version: '0.2.0', title: 'Relay 0.2.0', publishedAt: '2026-11-30T10:00:00Z', body: 'Fixes.', current: false, ...patch });
const render = (list: ReleaseNotesList | null, error: string | null = null) => renderToStaticMarkup(<ReleaseNotes list={list} error={error} />);
const body = (source: string) => renderToStaticMarkup(<MarkdownBody source={source} />);

const HOSTILE = [
  '<script>alert(1)</script>',
  '<img src=x onerror="alert(1)">',
  '[click me](javascript:alert(document.cookie))',
  '<a href="javascript:alert(1)">link</a>',
  '<iframe src="https://evil.example"></iframe>',
  'https://evil.example/bare',
  '**<svg onload=alert(1)>**',
  '```\n<script>alert(2)</script>\n```',
].join('\n\n');

describe('MarkdownBody', () => {
  it('renders hostile bodies as escaped text: no script, img, iframe, svg, a, event handler or javascript: URL', () => {
    const html = body(HOSTILE);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;');
    expect(html).toContain('&lt;a href=&quot;javascript:alert(1)&quot;&gt;link&lt;/a&gt;');
    expect(html).toContain('&lt;iframe');
    expect(html).toContain('<strong>&lt;svg onload=alert(1)&gt;</strong>');
    expect(html).toContain('<pre><code>&lt;script&gt;alert(2)&lt;/script&gt;</code></pre>');
    expect(html).toContain('<p>click me</p>');
    expect(html).toContain('<p>https://evil.example/bare</p>');
    expect(html).not.toContain('javascript:alert(document.cookie)');
    expect(html).not.toMatch(/<(script|img|iframe|svg|a)[\s>]/i);
    expect(html).not.toMatch(/<[^>]*\s(on\w+|href|src)=/i);
    const tags = [...html.matchAll(/<([a-z0-9]+)[\s>]/g)].map((m) => m[1]);
    expect(new Set(tags)).toEqual(new Set(['div', 'p', 'strong', 'pre', 'code']));
  });

  it('renders the subset with h3/h4/p/ul/ol/li/strong/em/code/pre', () => {
    const html = body('# Title\n## Fixes\n### Small\n\nSome **bold** and *em* and `x<y`.\n\n- one\n- [two](https://x)\n\n3. three\n4. four\n\n```\na && b\n```');
    expect(html).toBe(
      '<div class="release-note-body" data-testid="release-note-body">' +
        '<h3>Title</h3><h4>Fixes</h4><h4>Small</h4>' +
        '<p>Some <strong>bold</strong> and <em>em</em> and <code>x&lt;y</code>.</p>' +
        '<ul><li>one</li><li>two</li></ul>' +
        '<ol start="3"><li>three</li><li>four</li></ol>' +
        '<pre><code>a &amp;&amp; b</code></pre>' +
        '</div>',
    );
  });

  it('says when the body was cut at its bounds', () => {
    expect(body('x '.repeat(9000))).toContain('The rest of these notes is not shown.');
    expect(body('short')).not.toContain('The rest');
  });
});

describe('ReleaseNotes', () => {
  const list: ReleaseNotesList = {
    releases: [note({ version: '0.3.0', title: 'Relay 0.3.0', body: '## New\n- <b>notes</b>' }), note({ current: true, body: 'Old body' }), note({ version: '0.1.0', title: 'v0.1.0', publishedAt: null })],
    fetchedAtMs: Date.UTC(2026, 11, 6, 14, 30),
  };

  it('lists the releases with version, title, local date and the badge, the newest open', () => {
    const html = render(list);
    expect(html).toContain('data-testid="about-release-notes"');
    expect([...html.matchAll(/data-testid="release-note" data-version="([^"]+)"/g)].map((m) => m[1])).toEqual(['0.3.0', '0.2.0', '0.1.0']);
    expect(html).toContain('<strong>v0.3.0</strong> · Relay 0.3.0');
    expect(html).toContain(`<time class="muted" dateTime="2026-11-30T10:00:00Z">${formatReleaseDate('2026-11-30T10:00:00Z')}</time>`);
    expect(html).not.toContain('· v0.1.0');
    expect(html.match(/data-testid="release-note-current">This version</g)).toHaveLength(1);
    expect(html.match(/data-testid="release-note-body"/g)).toHaveLength(1);
    expect(html).toContain('&lt;b&gt;notes&lt;/b&gt;');
    expect(html).not.toContain('Old body');
    expect(html.match(/aria-expanded="true"/g)).toHaveLength(1);
    expect(html.match(/aria-expanded="false"/g)).toHaveLength(2);
    expect(html).toContain(`data-testid="release-notes-checked">Last checked ${formatCheckedAt(list.fetchedAtMs)}<`);
    expect(html).not.toContain('<a');
    expect(html).not.toContain('release-notes-empty');
  });

  it('shows the empty state for an empty list and nothing while loading', () => {
    const empty = render({ releases: [], fetchedAtMs: null });
    expect(empty).toContain(`data-testid="release-notes-empty">${EMPTY_TEXT}<`);
    expect(empty).not.toContain('Last checked');
    expect(render(null)).not.toContain('release-notes-empty');
  });

  it('shows at most 20 releases and a read failure', () => {
    const many = { releases: Array.from({ length: 25 }, (_, i) => note({ version: `0.${i}.0` })), fetchedAtMs: null };
    expect(render(many).match(/data-testid="release-note"/g)).toHaveLength(20);
    expect(render(null, 'Release notes could not be read: nope')).toContain('data-testid="release-notes-error">Release notes could not be read: nope<');
  });
});

describe('formatting and feature detection', () => {
  it('formats dates locally and skips missing or invalid ones', () => {
    expect(formatReleaseDate(null)).toBeNull();
    expect(formatReleaseDate('not a date')).toBeNull();
    expect(formatReleaseDate('2026-11-30T10:00:00Z')).toBe(new Date('2026-11-30T10:00:00Z').toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' }));
    expect(formatCheckedAt(null)).toBeNull();
    expect(formatCheckedAt(Number.NaN)).toBeNull();
  });

  it('uses a bridge as the source only when it has updateReleaseNotes', () => {
    const with_ = { updateReleaseNotes: async () => ({ releases: [], fetchedAtMs: null }) };
    expect(releaseNotesSource(with_)).toBe(with_);
    expect(releaseNotesSource({ updateStatus: async () => null })).toBeNull();
    expect(releaseNotesSource({ updateReleaseNotes: 'no' })).toBeNull();
    expect(releaseNotesSource(null)).toBeNull();
  });
});
