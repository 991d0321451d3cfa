// The release-notes answer of `update_release_notes`, read field by field: the contract shape,
// unknown fields dropped, malformed entries skipped, strings type-checked, at most 20 releases,
// bodies cut to 16 KiB of UTF-8 with the truncation marker, and the bridge method's command name.
import { describe, expect, it, vi } from 'vitest';
import { DesktopBridge } from './desktop';
import { MAX_RELEASE_BODY_BYTES, TRUNCATED_MARKER, releaseNotes } from './desktopUpdate';

const NOTE = { version: '1.3.0', title: 'Relay 1.3.0', publishedAt: '2026-03-01T10:00:02Z', body: '## Fixes\n- x', current: false };

describe('releaseNotes', () => {
  it('keeps the contract fields and drops unknown ones', () => {
    const raw = {
      releases: [{ ...NOTE, html: '<b>x</b>', htmlUrl: 'https://evil.example' }, { ...NOTE, version: '1.2.0', publishedAt: null, current: true }],
      fetchedAtMs: 1_800_000_000_000,
      extra: 1,
    };
    expect(releaseNotes(raw)).toEqual({
      releases: [NOTE, { ...NOTE, version: '1.2.0', publishedAt: null, current: true }],
      fetchedAtMs: 1_800_000_000_000,
    });
  });

  it('reads an unusable answer as no notes', () => {
    for (const raw of [null, undefined, 'x', 3, [], { releases: 'x' }, { releases: {} }]) {
      expect(releaseNotes(raw)).toEqual({ releases: [], fetchedAtMs: null });
    }
    expect(releaseNotes({ releases: [], fetchedAtMs: -1 }).fetchedAtMs).toBeNull();
    expect(releaseNotes({ releases: [], fetchedAtMs: '5' }).fetchedAtMs).toBeNull();
    expect(releaseNotes({ releases: [], fetchedAtMs: 1.5 }).fetchedAtMs).toBeNull();
  });

  it('skips malformed entries and type-checks every string', () => {
    const raw = {
      releases: [
        { ...NOTE, version: 'v1.3.0' },
        { ...NOTE, version: '1.3' },
        { ...NOTE, version: 130 },
        'not an object',
        null,
        { version: '1.1.0', title: 7, publishedAt: 'yesterday', body: { html: '<script>' }, current: 'yes' },
      ],
      fetchedAtMs: null,
    };
    expect(releaseNotes(raw).releases).toEqual([{ version: '1.1.0', title: 'v1.1.0', publishedAt: null, body: '', current: false }]);
  });

  it('keeps at most 20 releases and bounds titles', () => {
    const many = Array.from({ length: 30 }, (_, i) => ({ ...NOTE, version: `1.${i}.0`, title: 'x'.repeat(500) }));
    const notes = releaseNotes({ releases: many, fetchedAtMs: 1 }).releases;
    expect(notes).toHaveLength(20);
    expect(notes[0].title).toHaveLength(200);
  });

  it('cuts a body past 16 KiB on a character boundary and strips control characters', () => {
    const body = 'x' + 'é'.repeat(10 * 1024);
    const cut = releaseNotes({ releases: [{ ...NOTE, body }] }).releases[0].body;
    const size = new TextEncoder().encode(cut).length;
    expect(size).toBeLessThanOrEqual(MAX_RELEASE_BODY_BYTES);
    expect(cut.endsWith('é' + TRUNCATED_MARKER)).toBe(true);
    const clean = releaseNotes({ releases: [{ ...NOTE, body: 'a\r\nb\u0000c\u001b[1m\td' }] }).releases[0].body;
    expect(clean).toBe('a\nbc[1m\td');
    const html = '<img src=x onerror=alert(1)> &amp;';
    expect(releaseNotes({ releases: [{ ...NOTE, body: html }] }).releases[0].body).toBe(html);
  });

  it('is what DesktopBridge.updateReleaseNotes answers, from update_release_notes without arguments', async () => {
    const invoke = vi.fn(async () => ({ releases: [NOTE], fetchedAtMs: 5, other: true }));
    const bridge = new DesktopBridge({ core: { invoke } });
    await expect(bridge.updateReleaseNotes()).resolves.toEqual({ releases: [NOTE], fetchedAtMs: 5 });
    expect(invoke.mock.calls).toEqual([['update_release_notes', undefined]]);
  });
});
