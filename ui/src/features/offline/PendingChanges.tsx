// Desktop client mode: the "Changes waiting to sync" dialog, opened from the status bar's
// pending-changes badge. The list (collection, change, record, why it waits; "Load more" for the
// next page) and, for one change, the review: this PC's copy beside the server's (or why there
// is none), optional edits of existing scalar fields, and "Keep server version" / "Retry with my
// change". The state lives in PendingReview; these components only draw it (keyboard: the
// Modal traps focus, and focus moves to the heading of whichever panel is showing).
import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { Modal } from '../../components/Modal';
import type { PendingChange, Resolution } from '../../transport/types';
import {
  ACTION_LABELS,
  changeName,
  collectionLabel,
  compareRows,
  draftOf,
  editableFields,
  retryEdits,
  serverCopyText,
  type Draft,
  type EditableField,
} from './offline';
import { PendingReview, type OpenReview, type PendingReviewState, type ReviewQueue } from './pendingReview';

/** A heading that takes focus when its panel appears (the list ↔ review switch). */
function PanelHeading({ children, testId }: { children: string; testId: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <h3 ref={ref} className="subhead review-heading" tabIndex={-1} data-testid={testId}>
      {children}
    </h3>
  );
}

const WAITING = 'Waiting to sync';

export function PendingList({
  state,
  onReview,
  onMore,
}: {
  state: Pick<PendingReviewState, 'items' | 'nextAfterId' | 'loading' | 'error' | 'notice'>;
  onReview: (c: PendingChange) => void;
  onMore: () => void;
}) {
  const { items, loading } = state;
  return (
    <section className="pending-list">
      <PanelHeading testId="pending-heading">Queued on this PC</PanelHeading>
      <p className="muted" role="status" data-testid="pending-notice">
        {state.notice ?? ''}
      </p>
      {state.error && (
        <p className="error-text" role="alert" data-testid="pending-error">
          {state.error}
        </p>
      )}
      {items.length === 0 && !loading && !state.error && (
        <p className="muted" data-testid="pending-empty">
          No changes are waiting to sync.
        </p>
      )}
      {items.length > 0 && (
        <div className="table-scroll">
          <table className="table" data-testid="pending-table">
            <thead>
              <tr>
                <th scope="col">Collection</th>
                <th scope="col">Change</th>
                <th scope="col">Record</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Review</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((c) => (
                <tr key={c.id} data-testid="pending-row">
                  <td>{collectionLabel(c.collection)}</td>
                  <td>{ACTION_LABELS[c.action]}</td>
                  <td>{changeName(c)}</td>
                  <td className={c.reason === WAITING ? undefined : 'warn-text'}>{c.reason}</td>
                  <td>
                    <button type="button" className="button button-ghost small" aria-label={`Review ${changeName(c)}`} onClick={() => onReview(c)}>
                      Review
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div className="row-end">
        {loading && (
          <span className="muted" role="status">
            Loading…
          </span>
        )}
        {state.nextAfterId !== null && (
          <button type="button" className="button button-ghost" data-testid="pending-more" disabled={loading} onClick={onMore}>
            Load more
          </button>
        )}
      </div>
    </section>
  );
}

export interface ReviewPanelProps {
  open: OpenReview;
  busy: boolean;
  error: string | null;
  fields: readonly EditableField[];
  drafts: Readonly<Record<string, Draft>>;
  invalid: readonly string[];
  onDraft: (field: string, value: Draft) => void;
  onResolve: (resolution: Resolution) => void;
  onReviewAgain: () => void;
  onBack: () => void;
}

function EditInput({ f, draft, invalid, onDraft }: { f: EditableField; draft: Draft; invalid: boolean; onDraft: ReviewPanelProps['onDraft'] }) {
  const id = `review-edit-${f.field}`;
  if (typeof f.value === 'boolean') {
    return (
      <label className="checkbox-row" htmlFor={id}>
        <input id={id} type="checkbox" checked={draft === true} onChange={(e) => onDraft(f.field, e.target.checked)} />
        {f.field}
      </label>
    );
  }
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {f.field}
      </label>
      <input
        id={id}
        className="input"
        type={typeof f.value === 'number' ? 'number' : 'text'}
        value={String(draft)}
        aria-invalid={invalid || undefined}
        onChange={(e) => onDraft(f.field, e.target.value)}
      />
    </div>
  );
}

export function ReviewPanel(p: ReviewPanelProps) {
  const { item, review, stale } = p.open;
  const rows = review ? compareRows(review.local, review.server) : [];
  const serverText = review ? serverCopyText(review.server) : null;
  return (
    <section className="review-panel" data-testid="review-panel">
      <PanelHeading testId="review-heading">{`Review: ${changeName(item)}`}</PanelHeading>
      <p className="muted">
        {collectionLabel(item.collection)} · {ACTION_LABELS[item.action]} · {item.reason}
      </p>
      {p.busy && !review && !stale && (
        <p className="muted" role="status">
          Reading the server copy…
        </p>
      )}
      {p.error && (
        <p className="error-text" role="alert" data-testid="review-error">
          {p.error}
        </p>
      )}
      {review && (
        <>
          {item.action === 'delete' && <p data-testid="review-local-state">This PC deleted this record.</p>}
          {serverText && <p data-testid="review-server-state">{serverText}</p>}
          {rows.length > 0 && (
            <div className="table-scroll">
              <table className="table review-compare" data-testid="review-compare">
                <caption className="visually-hidden">This PC's copy beside the server's copy</caption>
                <thead>
                  <tr>
                    <th scope="col">Field</th>
                    <th scope="col">This PC</th>
                    <th scope="col">Server</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((r) => (
                    <tr key={r.field} className={r.differs ? 'review-differs' : undefined}>
                      <th scope="row">{r.field}</th>
                      <td>{r.local}</td>
                      <td>
                        {r.server}
                        {r.differs && <span className="pill pill-manual">differs</span>}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {p.fields.length > 0 && !stale && (
            <fieldset className="review-edits" data-testid="review-edits">
              <legend className="field-label">Change before retrying (optional)</legend>
              {p.fields.map((f) => (
                <EditInput key={f.field} f={f} draft={p.drafts[f.field] ?? draftOf(f.value)} invalid={p.invalid.includes(f.field)} onDraft={p.onDraft} />
              ))}
            </fieldset>
          )}
          {p.invalid.length > 0 && (
            <p className="error-text" role="alert" data-testid="review-invalid">
              Enter a number for: {p.invalid.join(', ')}
            </p>
          )}
        </>
      )}
      <div className="row-end">
        <button type="button" className="button button-ghost" data-testid="review-back" onClick={p.onBack}>
          Back to the list
        </button>
        {stale ? (
          <button type="button" className="button button-primary" data-testid="review-again" disabled={p.busy} onClick={p.onReviewAgain}>
            Review again
          </button>
        ) : (
          <>
            <button type="button" className="button button-ghost" data-testid="review-keep-server" disabled={!review || p.busy} onClick={() => p.onResolve('server')}>
              Keep server version
            </button>
            <button
              type="button"
              className="button button-primary"
              data-testid="review-retry"
              disabled={!review || p.busy || p.invalid.length > 0}
              onClick={() => p.onResolve('retry')}
            >
              Retry with my change
            </button>
          </>
        )}
      </div>
    </section>
  );
}

/** The open review with this PC's draft edits (reset for every fresh review). */
function OpenChange({ review, state }: { review: PendingReview; state: PendingReviewState & { open: OpenReview } }) {
  const [drafts, setDrafts] = useState<Record<string, Draft>>({});
  const fields = useMemo(() => editableFields(state.open.review?.local ?? null), [state.open.review]);
  const { edits, invalid } = retryEdits(fields, drafts);
  return (
    <ReviewPanel
      open={state.open}
      busy={state.busy}
      error={state.error}
      fields={fields}
      drafts={drafts}
      invalid={invalid}
      onDraft={(field, value) => setDrafts((d) => ({ ...d, [field]: value }))}
      onResolve={(resolution) => void review.resolve(resolution, edits)}
      onReviewAgain={() => void review.review(state.open.item)}
      onBack={() => review.back()}
    />
  );
}

export function PendingChangesModal({ queue, onClose }: { queue: ReviewQueue; onClose: () => void }) {
  const review = useMemo(() => new PendingReview(queue), [queue]);
  const state = useSyncExternalStore(review.subscribe, review.getSnapshot, review.getSnapshot);
  useEffect(() => {
    void review.load();
  }, [review]);
  const open = state.open;
  return (
    <Modal title="Changes waiting to sync" onClose={onClose} wide testId="pending-changes">
      {open ? (
        <OpenChange key={open.review?.token ?? `loading-${open.item.id}`} review={review} state={{ ...state, open }} />
      ) : (
        <PendingList state={state} onReview={(c) => void review.review(c)} onMore={() => void review.loadMore()} />
      )}
    </Modal>
  );
}
