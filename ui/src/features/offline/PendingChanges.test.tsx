// Markup tests for the offline review dialog's panels and the status bar's queue part
// (server-rendered, no DOM): the list with its columns, reasons and per-row Review buttons,
// "Load more" only while there is a next page, the empty state; the review side by side with
// differences marked in text, the server copy explained when deleted or unreadable, the edit
// fields before a retry, the refusal texts and "Review again"; the badge, the progress bar with
// done/total and its label, the stopped, refused and storage notices.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { OfflineSyncState } from '../../data/offlineSync';
import { idle } from '../../data/offlineTestkit';
import type { ChangeReview, PendingChange } from '../../transport/types';
import { editableFields } from './offline';
import { PendingList, ReviewPanel, type ReviewPanelProps } from './PendingChanges';
import { QueueStatusView } from './QueueStatus';

const noop = () => {};
const item = (id: number, reason: string, extra: Partial<PendingChange> = {}): PendingChange => ({
  id,
  collection: 'contacts',
  action: 'update',
  recordId: 'abcdefghijklmno',
  label: `Contact ${id}`,
  reason,
  ...extra,
});
const list = (extra: Partial<Parameters<typeof PendingList>[0]['state']> = {}) =>
  renderToStaticMarkup(
    <PendingList state={{ items: [], nextAfterId: null, loading: false, error: null, notice: null, ...extra }} onReview={noop} onMore={noop} />,
  );

describe('PendingList', () => {
  it('lists collection, change, record and reason, with a named Review button per row', () => {
    const html = list({ items: [item(1, 'Waiting to sync'), item(2, 'Server conflict', { action: 'delete', collection: 'oncall', label: '' })], nextAfterId: 2 });
    expect(html.match(/data-testid="pending-row"/g)).toHaveLength(2);
    expect(html).toContain('<td>Contacts</td><td>Edit</td><td>Contact 1</td><td>Waiting to sync</td>');
    expect(html).toContain('<td>On-call board</td><td>Delete</td><td>On-call board abcdefghijklmno</td><td class="warn-text">Server conflict</td>');
    expect(html).toContain('aria-label="Review Contact 1"');
    expect(html).toMatch(/data-testid="pending-more"[^>]*>Load more</);
    expect(html).toContain('<th scope="col"><span class="visually-hidden">Review</span></th>');
  });

  it('says when nothing waits, offers no more on the last page, and shows errors and notices', () => {
    expect(list()).toContain('No changes are waiting to sync.');
    expect(list()).not.toContain('pending-more');
    expect(list({ loading: true })).not.toContain('pending-empty');
    expect(list({ loading: true, nextAfterId: 25, items: [item(1, 'Waiting to sync')] })).toMatch(/disabled=""[^>]*>Load more/);
    const refused = list({ error: 'Sign in to the Relay server to sync offline changes.' });
    expect(refused).toMatch(/role="alert" data-testid="pending-error">Sign in to the Relay server to sync offline changes\.</);
    expect(refused).not.toContain('pending-empty');
    expect(list({ notice: 'Kept the server version of Contact 3.' })).toMatch(/role="status" data-testid="pending-notice">Kept the server version of Contact 3\.</);
  });
});

const review = (server: ChangeReview['server'], local: Record<string, unknown> | null = { name: 'Ann B', vip: true, order: 2 }): ChangeReview => ({
  token: 'tok',
  change: {},
  local,
  server,
});
const panel = (extra: Partial<ReviewPanelProps> = {}) => {
  const open = extra.open ?? { item: item(3, 'Server conflict'), review: review({ state: 'present', record: { name: 'Ann C', vip: true, order: 2 } }), stale: false };
  return renderToStaticMarkup(
    <ReviewPanel
      open={open}
      busy={false}
      error={null}
      fields={editableFields(open.review?.local ?? null)}
      drafts={{}}
      invalid={[]}
      onDraft={noop}
      onResolve={noop}
      onReviewAgain={noop}
      onBack={noop}
      {...extra}
    />,
  );
};

describe('ReviewPanel', () => {
  it('puts this PC beside the server, marks differences in words, offers both resolutions and edits', () => {
    const html = panel();
    expect(html).toContain('Review: Contact 3');
    expect(html).toContain('<th scope="col">This PC</th><th scope="col">Server</th>');
    expect(html).toContain('<tr class="review-differs"><th scope="row">name</th><td>Ann B</td><td>Ann C<span class="pill pill-manual">differs</span></td></tr>');
    expect(html).toContain('<tr><th scope="row">vip</th><td>true</td><td>true</td></tr>');
    expect(html).toMatch(/data-testid="review-keep-server">Keep server version</);
    expect(html).toMatch(/data-testid="review-retry">Retry with my change</);
    expect(html).toContain('Change before retrying (optional)');
    expect(html).toMatch(/<label class="field-label" for="review-edit-name">name<\/label><input id="review-edit-name" class="input" type="text" value="Ann B"/);
    expect(html).toMatch(/id="review-edit-order" class="input" type="number" value="2"/);
    expect(html).toMatch(/<input id="review-edit-vip" type="checkbox" checked=""/);
    expect(html).not.toContain('review-again');
  });

  it('explains a deleted or unreadable server copy, and a local delete', () => {
    expect(panel({ open: { item: item(3, 'Server conflict'), review: review({ state: 'deleted' }), stale: false } })).toMatch(
      /data-testid="review-server-state">The server no longer has this record: it was deleted there\.</,
    );
    expect(panel({ open: { item: item(3, 'Server conflict'), review: review({ state: 'unavailable' }), stale: false } })).toMatch(
      /data-testid="review-server-state">The server copy could not be read right now/,
    );
    const del = panel({ open: { item: item(3, 'Server conflict', { action: 'delete' }), review: review({ state: 'present', record: { name: 'Ann' } }, null), stale: false } });
    expect(del).toContain('This PC deleted this record.');
    expect(del).not.toContain('review-edits');
  });

  it('shows a refusal and only "Review again" once the token is spent; retry waits for valid numbers', () => {
    const MOVED = 'This change or connection has changed. Review it again before resolving.';
    const stale = panel({
      error: MOVED,
      open: { item: item(3, 'Server conflict'), review: review({ state: 'present', record: { name: 'Ann C' } }), stale: true },
    });
    expect(stale).toMatch(/role="alert" data-testid="review-error">This change or connection has changed\. Review it again before resolving\.</);
    expect(stale).toMatch(/data-testid="review-again">Review again</);
    expect(stale).not.toContain('review-keep-server');
    expect(stale).not.toContain('review-edits');
    const invalid = panel({ drafts: { order: 'two' }, invalid: ['order'] });
    expect(invalid).toMatch(/role="alert" data-testid="review-invalid">Enter a number for: order</);
    expect(invalid).toMatch(/id="review-edit-order" class="input" type="number" aria-invalid="true" value="two"/);
    expect(invalid).toMatch(/data-testid="review-retry" disabled=""/);
    const loading = panel({ busy: true, open: { item: item(3, 'Server conflict'), review: null, stale: false } });
    expect(loading).toContain('Reading the server copy…');
    expect(loading).toMatch(/data-testid="review-keep-server" disabled=""/);
  });
});

const queue = (status: OfflineSyncState['status'], replayError: string | null = null) =>
  renderToStaticMarkup(<QueueStatusView state={{ status, replayError }} onOpen={noop} />);

describe('QueueStatusView (status bar)', () => {
  it('shows nothing before the first status, or when nothing is queued', () => {
    expect(queue(null)).toBe('');
    expect(queue(idle())).toBe('<span class="queue-status" data-testid="offline-queue"></span>');
  });

  it('the badge counts changes waiting and needing review and opens the review dialog', () => {
    expect(queue(idle({ pendingCount: 3 }))).toMatch(/class="queue-badge" data-testid="offline-pending" aria-haspopup="dialog"[^>]*>3 changes waiting to sync</);
    expect(queue(idle({ pendingCount: 3, issueCount: 1 }))).toMatch(/class="queue-badge queue-badge-review"[^>]*>3 changes waiting to sync · 1 needs review</);
  });

  it('a replay shows a progress bar with done of total and its label', () => {
    const html = queue(idle({ pendingCount: 5, replaying: true, progress: [2, 5] }));
    expect(html).toContain('<progress max="5" value="2" aria-label="Offline changes synced"></progress>Syncing offline changes: 2 of 5');
    expect(queue(idle({ replaying: true }))).toContain('Syncing offline changes…');
    expect(queue(idle({ pendingCount: 1 }))).not.toContain('<progress');
  });

  it('shows why the last replay stopped or was refused, and the storage notice', () => {
    const last = { total: 4, synced: 1, conflicts: 0, failed: 0, stopped: 'The server went away.' };
    expect(queue(idle({ pendingCount: 3, lastReplay: last }))).toMatch(/data-testid="offline-stopped">Sync stopped: The server went away\.</);
    expect(queue(idle({ pendingCount: 3 }), 'Sign in to the Relay server to sync offline changes.')).toMatch(
      /data-testid="offline-error">Sign in to the Relay server to sync offline changes\.</,
    );
    expect(queue(idle({ lastError: 'old error' }))).not.toContain('offline-error');
    expect(queue(idle({ storageNotice: 'The offline cache could not be saved.' }))).toMatch(/data-testid="offline-storage">The offline cache could not be saved\.</);
  });
});
