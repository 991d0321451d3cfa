// The shared header controls and load-error panel: the prefixed test ids, the always-present
// live notice region, aria-busy/disabled/spinner on Refresh (busy may outlast refreshing), and
// the stale/fresh error panel with Try again.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { LoadErrorPanel, RefreshControls, RefreshHeader } from './RefreshHeader';

const noop = () => {};

describe('RefreshControls', () => {
  it('idle: updated text, an empty live notice region, an enabled Refresh', () => {
    const html = renderToStaticMarkup(<RefreshControls testIdPrefix="x" updated="Updated now" notice={null} refreshing={false} onRefresh={noop} />);
    expect(html).toContain('<span class="muted small" data-testid="x-updated">Updated now</span>');
    expect(html).toContain('<span class="status-notice small" role="status" data-testid="x-notice"></span>');
    expect(html).toMatch(/<button type="button" class="button button-ghost push-right status-refresh" aria-busy="false" data-testid="x-refresh"><span class="status-spinner" aria-hidden="true"><\/span>Refresh<\/button>/);
  });

  it('refreshing: disabled, busy, spinning, "Refreshing…", with the notice and its tone', () => {
    const html = renderToStaticMarkup(
      <RefreshControls testIdPrefix="x" updated="u" notice={{ text: 'try again in 5 s', tone: 'warn' }} refreshing onRefresh={noop} />,
    );
    expect(html).toContain('class="status-notice small status-notice-warn" role="status" data-testid="x-notice">try again in 5 s<');
    expect(html).toMatch(/aria-busy="true" disabled="" data-testid="x-refresh"><span class="status-spinner status-spinning" aria-hidden="true"><\/span>Refreshing…/);
  });

  it('busy without a manual refresh: spinning and aria-busy, yet enabled', () => {
    const html = renderToStaticMarkup(<RefreshControls testIdPrefix="x" updated="u" notice={null} refreshing={false} busy onRefresh={noop} />);
    expect(html).toMatch(/aria-busy="true" data-testid="x-refresh"><span class="status-spinner status-spinning"/);
    expect(html).toContain('>Refresh<');
  });
});

describe('LoadErrorPanel', () => {
  it('an alert with the lead, the error and Try again; stale styling when older data is shown', () => {
    const fresh = renderToStaticMarkup(<LoadErrorPanel error="boom" stale={false} lead="Could not load. " testId="e" retryTestId="r" onRetry={noop} />);
    expect(fresh).toBe(
      '<div class="panel status-error" role="alert" data-testid="e"><p class="error-text">Could not load. boom</p><button type="button" class="button button-ghost" data-testid="r">Try again</button></div>',
    );
    const stale = renderToStaticMarkup(<LoadErrorPanel error="boom" stale lead="Old. " testId="e" retryTestId="r" onRetry={noop} />);
    expect(stale).toContain('class="panel status-error status-error-stale"');
  });
});

describe('RefreshHeader', () => {
  it('title and subtitle under the prefix classes, the extras, then the prefixed controls', () => {
    const html = renderToStaticMarkup(
      <RefreshHeader prefix="x" title="Title" subtitle="Sub" state={{ notice: null, refreshing: false }} updated="u" onRefresh={noop}>
        <span data-testid="extra" />
      </RefreshHeader>,
    );
    expect(html).toMatch(
      /^<header class="view-header x-header"><div><h1 class="view-title">Title<\/h1><p class="muted x-subtitle">Sub<\/p><\/div><span data-testid="extra"><\/span><span class="muted small" data-testid="x-updated">u<\/span>.*data-testid="x-refresh".*<\/header>$/,
    );
  });
});
