// The pieces the Status and Radar views share around their feed: the header's
// Updated / notice / Refresh run, and the load-error panel with its Try again. Test ids are
// `${testIdPrefix}-updated`, `-notice`, `-refresh` (the e2e and unit tests rely on them).
import type { ReactNode } from 'react';
import type { Notice } from '../lib/manualRefresh';

/** What a feed view's board gets from its container (Status, Radar). */
export interface FeedBoardProps<S> {
  state: S;
  now: number;
  onRefresh: () => void;
  onRetry: () => void;
}

export interface RefreshControlsProps {
  /** e.g. "status" → status-updated, status-notice, status-refresh. */
  testIdPrefix: string;
  /** The "Updated …" / "Loading…" text. */
  updated: ReactNode;
  notice: Notice | null;
  /** A manual refresh is running: the button is disabled and reads "Refreshing…". */
  refreshing: boolean;
  /** The spinner turns and aria-busy is set (defaults to `refreshing`). */
  busy?: boolean;
  onRefresh: () => void;
}

/** Updated text, the live notice region (always present, so screen readers hear it) and Refresh. */
export function RefreshControls({ testIdPrefix, updated, notice, refreshing, busy = refreshing, onRefresh }: RefreshControlsProps) {
  return (
    <>
      <span className="muted small" data-testid={`${testIdPrefix}-updated`}>
        {updated}
      </span>
      <span className={`status-notice small${notice ? ` status-notice-${notice.tone}` : ''}`} role="status" data-testid={`${testIdPrefix}-notice`}>
        {notice?.text ?? ''}
      </span>
      <button
        type="button"
        className="button button-ghost push-right status-refresh"
        aria-busy={busy}
        disabled={refreshing}
        onClick={onRefresh}
        data-testid={`${testIdPrefix}-refresh`}
      >
        <span className={`status-spinner${busy ? ' status-spinning' : ''}`} aria-hidden="true" />
        {refreshing ? 'Refreshing…' : 'Refresh'}
      </button>
    </>
  );
}

export interface RefreshHeaderProps extends Omit<RefreshControlsProps, 'testIdPrefix' | 'notice' | 'refreshing'> {
  /** "status" / "radar": the header's classes (`<prefix>-header`, `<prefix>-subtitle`) and test ids. */
  prefix: string;
  title: string;
  subtitle: string;
  /** The feed's notice and refreshing flag. */
  state: { notice: Notice | null; refreshing: boolean };
  /** Shown between the title and the Updated text. */
  children?: ReactNode;
}

/** A feed view's header: title and subtitle, the view's own extras, then Updated / notice / Refresh. */
export function RefreshHeader({ prefix, title, subtitle, state, children, ...controls }: RefreshHeaderProps) {
  return (
    <header className={`view-header ${prefix}-header`}>
      <div>
        <h1 className="view-title">{title}</h1>
        <p className={`muted ${prefix}-subtitle`}>{subtitle}</p>
      </div>
      {children}
      <RefreshControls testIdPrefix={prefix} notice={state.notice} refreshing={state.refreshing} {...controls} />
    </header>
  );
}

export interface LoadErrorPanelProps {
  error: string;
  /** Something older is still shown below (the panel says so and is styled as stale). */
  stale: boolean;
  /** The lead sentence, stale or not (ends with a space; the error follows). */
  lead: string;
  testId: string;
  retryTestId: string;
  onRetry: () => void;
}

/** Why the latest load failed, with Try again. */
export function LoadErrorPanel({ error, stale, lead, testId, retryTestId, onRetry }: LoadErrorPanelProps) {
  return (
    <div className={`panel status-error${stale ? ' status-error-stale' : ''}`} role="alert" data-testid={testId}>
      <p className="error-text">
        {lead}
        {error}
      </p>
      <button type="button" className="button button-ghost" onClick={onRetry} data-testid={retryTestId}>
        Try again
      </button>
    </div>
  );
}
