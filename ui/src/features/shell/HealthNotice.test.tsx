// Markup test for the status bar's health notice (server-rendered, no DOM): a button naming the
// count that opens System health, each reason in its tooltip, inside a live region that is there
// (empty) when all is well.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { HealthNoticeView } from './HealthNotice';

describe('HealthNoticeView', () => {
  it('degraded: a button with the count, the reasons as its title and where it leads', () => {
    const html = renderToStaticMarkup(
      <HealthNoticeView notice={{ text: '⚠ 2 subsystems degraded', detail: 'radar: Sign-in needed\nstatus_feeds: 17 of 17 feeds failing' }} onOpen={() => {}} />,
    );
    expect(html).toMatch(/role="status"[^]*<button type="button" class="statusbar-health" data-testid="status-health" title="radar: Sign-in needed\nstatus_feeds: 17 of 17 feeds failing">⚠ 2 subsystems degraded<span class="visually-hidden"> — open System health<\/span><\/button>/);
  });

  it('all well: the live region stays, empty', () => {
    expect(renderToStaticMarkup(<HealthNoticeView notice={null} onOpen={() => {}} />)).toBe('<span role="status" data-testid="status-health-region"></span>');
  });
});
