// Release notes in Settings → About (desktop only): the releases the desktop shell read with its
// update checks (newest first, at most MAX_RELEASES), each with its version, title, local date
// and a "This version" badge, its body collapsible (the newest expanded), and when the list was
// last read. Bodies are Markdown from GitHub, parsed by markdownSubset.ts and rendered here as
// React elements and text nodes only: no dangerouslySetInnerHTML, no <a>, no raw HTML, a link
// shows its text and never its URL. The list comes from the bridge's `updateReleaseNotes`
// (feature-detected: a shell without it shows no notes), read when About mounts and again after
// each update check finishes.
import { Fragment, useEffect, useRef, useState, type ReactNode } from 'react';
import type { UpdateViewState } from './updateController';
import { refusalText } from './updateModel';
import { parseMarkdown, type Block, type Inline } from './markdownSubset';
import type { ReleaseNote, ReleaseNotes as ReleaseNotesList } from '../../transport/desktopUpdate';

export const MAX_RELEASES = 20;
export const EMPTY_TEXT = 'No release notes yet: they are read with the next update check.';

/** The bridge's answer types (parsed field by field in transport/desktopUpdate.ts). */
export type { ReleaseNote, ReleaseNotes as ReleaseNotesList } from '../../transport/desktopUpdate';

/** What About needs of the desktop bridge (DesktopBridge fits it structurally once it has the method). */
export interface ReleaseNotesSource {
  updateReleaseNotes(): Promise<ReleaseNotesList>;
}

/** `bridge` as a release-notes source when it has `updateReleaseNotes`, else null. */
export function releaseNotesSource(bridge: unknown): ReleaseNotesSource | null {
  const b = bridge as Partial<Record<'updateReleaseNotes', unknown>> | null | undefined;
  return typeof b?.updateReleaseNotes === 'function' ? (bridge as ReleaseNotesSource) : null;
}

/** The release's date in the local format, or null without a valid date. */
export function formatReleaseDate(publishedAt: string | null): string | null {
  if (!publishedAt) return null;
  const d = new Date(publishedAt);
  return Number.isNaN(d.getTime()) ? null : d.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
}

/** When the list was read, in the local format, or null. */
export function formatCheckedAt(ms: number | null): string | null {
  if (ms === null || !Number.isFinite(ms)) return null;
  return new Date(ms).toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

function renderInlines(nodes: Inline[]): ReactNode[] {
  return nodes.map((n, i) => {
    switch (n.kind) {
      case 'text':
        return <Fragment key={i}>{n.text}</Fragment>;
      case 'code':
        return <code key={i}>{n.text}</code>;
      case 'strong':
        return <strong key={i}>{renderInlines(n.children)}</strong>;
      case 'em':
        return <em key={i}>{renderInlines(n.children)}</em>;
    }
  });
}

function renderBlock(block: Block, key: number): ReactNode {
  switch (block.kind) {
    case 'heading':
      return block.level === 1 ? <h3 key={key}>{renderInlines(block.content)}</h3> : <h4 key={key}>{renderInlines(block.content)}</h4>;
    case 'paragraph':
      return <p key={key}>{renderInlines(block.content)}</p>;
    case 'code':
      return (
        <pre key={key}>
          <code>{block.text}</code>
        </pre>
      );
    case 'list': {
      const items = block.items.map((item, i) => <li key={i}>{renderInlines(item)}</li>);
      return block.ordered ? (
        <ol key={key} start={block.start === 1 ? undefined : block.start}>
          {items}
        </ol>
      ) : (
        <ul key={key}>{items}</ul>
      );
    }
  }
}

/** One release body: the Markdown subset as React elements and text. */
export function MarkdownBody({ source }: { source: string }) {
  const doc = parseMarkdown(source);
  return (
    <div className="release-note-body" data-testid="release-note-body">
      {doc.blocks.map(renderBlock)}
      {doc.truncated && <p className="muted">(The rest of these notes is not shown.)</p>}
    </div>
  );
}

function ReleaseItem({ release, index, expanded, onToggle }: { release: ReleaseNote; index: number; expanded: boolean; onToggle: () => void }) {
  const date = formatReleaseDate(release.publishedAt);
  const bodyId = `release-note-body-${index}`;
  return (
    <li className="release-note" data-testid="release-note" data-version={release.version}>
      <button type="button" className="button button-ghost release-note-toggle" aria-expanded={expanded} aria-controls={expanded ? bodyId : undefined} onClick={onToggle}>
        <strong>v{release.version}</strong>
        {release.title && release.title !== release.version && release.title !== `v${release.version}` && <> · {release.title}</>}
      </button>
      {date && (
        <>
          {' '}
          <time className="muted" dateTime={release.publishedAt ?? undefined}>
            {date}
          </time>
        </>
      )}
      {release.current && (
        <span className="pill" data-testid="release-note-current">
          This version
        </span>
      )}
      {expanded && (
        <div id={bodyId}>
          {release.body.trim() === '' ? <p className="muted">No notes for this release.</p> : <MarkdownBody source={release.body} />}
        </div>
      )}
    </li>
  );
}

/** The list (pure rendering apart from which bodies are open; the newest starts open). */
export function ReleaseNotes({ list, error = null }: { list: ReleaseNotesList | null; error?: string | null }) {
  const releases = (list?.releases ?? []).slice(0, MAX_RELEASES);
  const [toggled, setToggled] = useState<ReadonlySet<string>>(() => new Set());
  const checked = formatCheckedAt(list?.fetchedAtMs ?? null);
  const toggle = (version: string) =>
    setToggled((prev) => {
      const next = new Set(prev);
      if (!next.delete(version)) next.add(version);
      return next;
    });
  return (
    <section className="release-notes" aria-label="Release notes" data-testid="about-release-notes">
      <h3>Release notes</h3>
      {error && (
        <p className="error-text" role="status" data-testid="release-notes-error">
          {error}
        </p>
      )}
      {releases.length === 0 ? (
        list !== null && (
          <p className="muted" data-testid="release-notes-empty">
            {EMPTY_TEXT}
          </p>
        )
      ) : (
        <ul className="release-note-list">
          {releases.map((r, i) => (
            <ReleaseItem key={`${r.version}-${i}`} release={r} index={i} expanded={(i === 0) !== toggled.has(r.version)} onToggle={() => toggle(r.version)} />
          ))}
        </ul>
      )}
      {checked && (
        <p className="muted" data-testid="release-notes-checked">
          Last checked {checked}
        </p>
      )}
    </section>
  );
}

/**
 * Reads the list from `source` now and again after each update check finishes (the update
 * state's `busy` leaving 'check') or when the offered version changes (the updater's own checks).
 */
export function useReleaseNotes(source: ReleaseNotesSource, state: UpdateViewState | null): { list: ReleaseNotesList | null; error: string | null } {
  const [result, setResult] = useState<{ list: ReleaseNotesList | null; error: string | null }>({ list: null, error: null });
  const [generation, setGeneration] = useState(0);
  const busy = state?.busy ?? null;
  const latest = state?.snapshot?.latestVersion ?? null;
  const seen = useRef({ checking: false, latest });
  useEffect(() => {
    // One more read when a check ends, or when the offered version changed outside a check.
    const checking = busy === 'check';
    const prev = seen.current;
    if (!checking && (prev.checking || prev.latest !== latest)) setGeneration((g) => g + 1);
    seen.current = { checking, latest: checking ? prev.latest : latest };
  }, [busy, latest]);
  useEffect(() => {
    let live = true;
    Promise.resolve()
      .then(() => source.updateReleaseNotes())
      .then(
      (list) => live && setResult({ list, error: null }),
      (e: unknown) => live && setResult((prev) => ({ list: prev.list, error: `Release notes could not be read: ${refusalText(e)}` })),
    );
    return () => {
      live = false;
    };
  }, [source, generation]);
  return result;
}

/** About's release-notes section for a shell whose bridge has `updateReleaseNotes`. */
export function AboutReleaseNotes({ source, state }: { source: ReleaseNotesSource; state: UpdateViewState | null }) {
  const { list, error } = useReleaseNotes(source, state);
  return <ReleaseNotes list={list} error={error} />;
}
