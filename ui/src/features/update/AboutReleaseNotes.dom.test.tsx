// @vitest-environment jsdom
// Settings → About wired to the release notes, mounted in a DOM under the real UpdateProvider with
// the fake updater shell plus a fake `updateReleaseNotes`: the notes are read when About mounts
// and again after a check from the Update dialog finishes; a hostile body shows as text (no
// script, img or a element in the DOM); collapsing and expanding a release; the empty state; a
// read failure; a new version offered outside a check (the updater's own checks); and no notes section at all when the bridge has no `updateReleaseNotes`.
import { act } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { domRoot, flush } from '../../lib/domTest';
import { AboutPanel } from './AboutPanel';
import { AboutReleaseNotes, releaseNotesSource, type ReleaseNotesList } from './ReleaseNotes';
import { UpdateProvider } from './UpdateContext';
import type { UpdateBridge, UpdateViewState } from './updateController';
import { fakeUpdaterShell } from './updateTestkit';

const dom = domRoot();

async function mount(bridge: UpdateBridge) {
  const host = await dom.render(<UpdateProvider bridge={bridge}><AboutPanel /></UpdateProvider>);
  await flush();
  return host;
}

const LIST: ReleaseNotesList = {
  releases: [
    { version: '0.2.0', title: 'Relay 0.2.0', publishedAt: '2026-12-01T09:00:00Z', body: '## New\n- <script>window.__pwned = 1</script>\n- <img src=x onerror="window.__pwned = 2">\n- [docs](javascript:alert(1))', current: false },
    { version: '0.1.0', title: 'Relay 0.1.0', publishedAt: '2026-11-01T09:00:00Z', body: 'First **release**.', current: true },
  ],
  fetchedAtMs: Date.UTC(2026, 11, 6, 15, 0),
};

function withNotes(answer: () => Promise<ReleaseNotesList>) {
  const shell = fakeUpdaterShell();
  const updateReleaseNotes = vi.fn(answer);
  return { shell, updateReleaseNotes, bridge: Object.assign(shell.bridge, { updateReleaseNotes }) };
}

const q = (el: ParentNode, testid: string) => el.querySelector(`[data-testid="${testid}"]`);

describe('Settings → About release notes', () => {
  it('reads the notes on mount and renders hostile bodies as text only', async () => {
    const { bridge, updateReleaseNotes } = withNotes(async () => LIST);
    const el = await mount(bridge);
    expect(updateReleaseNotes).toHaveBeenCalledTimes(1);
    const section = q(el, 'about-release-notes');
    expect(section).not.toBeNull();
    expect(q(el, 'settings-about')?.contains(section)).toBe(true);
    const notes = [...el.querySelectorAll('[data-testid="release-note"]')];
    expect(notes.map((n) => n.getAttribute('data-version'))).toEqual(['0.2.0', '0.1.0']);
    const body = q(notes[0], 'release-note-body');
    expect(body?.textContent).toContain('<script>window.__pwned = 1</script>');
    expect(body?.textContent).toContain('<img src=x onerror="window.__pwned = 2">');
    expect(body?.textContent).toContain('docs');
    expect(body?.textContent).not.toContain('javascript:');
    expect(el.querySelector('script, img, a, iframe')).toBeNull();
    expect(el.querySelector('[onerror], [href], [src]')).toBeNull();
    expect((globalThis as { __pwned?: number }).__pwned).toBeUndefined();
    expect(q(notes[1], 'release-note-current')?.textContent).toBe('This version');
    expect(q(notes[1], 'release-note-body')).toBeNull();
    expect(q(el, 'release-notes-checked')?.textContent).toMatch(/^Last checked /);
  });

  it('opens and closes a release body with its toggle', async () => {
    const { bridge } = withNotes(async () => LIST);
    const el = await mount(bridge);
    const [newest, older] = [...el.querySelectorAll('[data-testid="release-note"]')];
    const olderToggle = older.querySelector('button');
    expect(olderToggle?.getAttribute('aria-expanded')).toBe('false');
    await act(async () => olderToggle?.click());
    expect(olderToggle?.getAttribute('aria-expanded')).toBe('true');
    expect(q(older, 'release-note-body')?.innerHTML).toBe('<p>First <strong>release</strong>.</p>');
    await act(async () => newest.querySelector('button')?.click());
    expect(q(newest, 'release-note-body')).toBeNull();
  });

  it('reads the notes again after an update check finishes', async () => {
    const { bridge, updateReleaseNotes, shell } = withNotes(async () => LIST);
    const el = await mount(bridge);
    expect(updateReleaseNotes).toHaveBeenCalledTimes(1);
    await act(async () => (q(el, 'about-updates') as HTMLButtonElement).click());
    await act(async () => (document.querySelector('[data-testid="update-check"]') as HTMLButtonElement).click());
    await flush();
    expect(shell.state.checks).toBe(1);
    expect(updateReleaseNotes).toHaveBeenCalledTimes(2);
    await flush();
    expect(updateReleaseNotes).toHaveBeenCalledTimes(2);
  });

  it('shows the empty state, then the releases a check brought', async () => {
    let answer: ReleaseNotesList = { releases: [], fetchedAtMs: null };
    const { bridge } = withNotes(async () => answer);
    const el = await mount(bridge);
    expect(q(el, 'release-notes-empty')?.textContent).toBe('No release notes yet: they are read with the next update check.');
    answer = LIST;
    await act(async () => (q(el, 'about-updates') as HTMLButtonElement).click());
    await act(async () => (document.querySelector('[data-testid="update-check"]') as HTMLButtonElement).click());
    await flush();
    expect(q(el, 'release-notes-empty')).toBeNull();
    expect(el.querySelectorAll('[data-testid="release-note"]')).toHaveLength(2);
  });

  it('says so when the notes cannot be read', async () => {
    const { bridge } = withNotes(() => Promise.reject({ code: 'io', message: 'The release notes file is unreadable.' }));
    const el = await mount(bridge);
    expect(q(el, 'release-notes-error')?.textContent).toBe('Release notes could not be read: The release notes file is unreadable.');
  });

  it('uses the desktop bridge as the notes source, and nothing without updateReleaseNotes', () => {
    expect(releaseNotesSource(fakeUpdaterShell().bridge)).not.toBeNull();
    expect(releaseNotesSource({ updateStatus: async () => null })).toBeNull();
    expect(releaseNotesSource(null)).toBeNull();
  });

  it("reads again when the offered version changes outside a check, once per check otherwise", async () => {
    const updateReleaseNotes = vi.fn(async () => LIST);
    const source = { updateReleaseNotes };
    const base: UpdateViewState = { snapshot: null, unavailable: null, busy: null, message: null, checked: false, restart: null };
    const snapshot = (latestVersion: string | null) => ({ phase: 'available' as const, currentVersion: '0.1.0', latestVersion, installable: true, downloadedBytes: 0, totalBytes: null, failureCode: null });
    const show = async (state: UpdateViewState) => {
      await dom.rerender(<AboutReleaseNotes source={source} state={state} />);
      await flush();
    };
    await show({ ...base, snapshot: snapshot('0.2.0') });
    expect(updateReleaseNotes).toHaveBeenCalledTimes(1);
    await show({ ...base, snapshot: snapshot('0.2.0'), message: { text: 'x', error: false } });
    expect(updateReleaseNotes).toHaveBeenCalledTimes(1);
    await show({ ...base, snapshot: snapshot('0.3.0') });
    expect(updateReleaseNotes).toHaveBeenCalledTimes(2);
    await show({ ...base, snapshot: snapshot('0.3.0'), busy: 'check' });
    await show({ ...base, snapshot: snapshot('0.4.0'), busy: 'check' });
    expect(updateReleaseNotes).toHaveBeenCalledTimes(2);
    await show({ ...base, snapshot: snapshot('0.4.0'), checked: true });
    expect(updateReleaseNotes).toHaveBeenCalledTimes(3);
    await show({ ...base, snapshot: snapshot('0.4.0'), busy: 'download' });
    await show({ ...base, snapshot: snapshot('0.4.0') });
    expect(updateReleaseNotes).toHaveBeenCalledTimes(3);
  });
});
