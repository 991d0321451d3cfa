// Tests for the attention rules: title prefix, favicon variant, and the connection-loss time.
import { describe, expect, it } from 'vitest';
import {
  ALARM_PREFIX,
  ALERT_DOT,
  attentionFor,
  attentionTitle,
  FAVICON_SVG,
  faviconHref,
  LOST_PREFIX,
  nextLostAt,
  withAlertDot,
} from './attention';

describe('attentionFor', () => {
  it('is quiet when connected with nothing due', () => {
    expect(attentionFor({ due: 0, connection: 'connected' })).toEqual({ alarm: false, lost: false, titlePrefix: '', favicon: 'normal' });
  });
  it('flags a due alarm', () => {
    const a = attentionFor({ due: 2, connection: 'connected' });
    expect(a).toMatchObject({ alarm: true, lost: false, titlePrefix: ALARM_PREFIX, favicon: 'alert' });
  });
  it.each(['offline', 'reconnecting', 'auth-failed'] as const)('flags %s as a lost connection', (connection) => {
    expect(attentionFor({ due: 0, connection })).toMatchObject({ lost: true, titlePrefix: LOST_PREFIX, favicon: 'alert' });
  });
  it('does not treat the first connect as a loss', () => {
    expect(attentionFor({ due: 0, connection: 'connecting' }).lost).toBe(false);
  });
  it('shows both, alarm first', () => {
    expect(attentionFor({ due: 1, connection: 'offline' }).titlePrefix).toBe(ALARM_PREFIX + LOST_PREFIX);
  });
});

describe('attentionTitle', () => {
  it('prefixes and restores', () => {
    const t = attentionTitle('Relay', attentionFor({ due: 1, connection: 'connected' }));
    expect(t).toBe('Alarm due — Relay');
    expect(attentionTitle(t, attentionFor({ due: 0, connection: 'connected' }))).toBe('Relay');
  });
  it('never stacks prefixes', () => {
    const lost = attentionFor({ due: 0, connection: 'offline' });
    expect(attentionTitle(attentionTitle('Relay', lost), lost)).toBe('Connection lost — Relay');
  });
});

describe('favicon', () => {
  it('draws the red dot on top of the icon', () => {
    const svg = withAlertDot(FAVICON_SVG);
    expect(svg.endsWith(ALERT_DOT + '</svg>')).toBe(true);
    expect(svg.startsWith(FAVICON_SVG.slice(0, -6))).toBe(true);
  });
  it('rejects a non-SVG', () => {
    expect(() => withAlertDot('<png/>')).toThrow();
  });
  it('is a data: URL for the alert variant and the page icon otherwise', () => {
    const href = faviconHref('alert', '/favicon.svg');
    expect(href.startsWith('data:image/svg+xml,')).toBe(true);
    expect(decodeURIComponent(href.slice('data:image/svg+xml,'.length))).toContain('#e5383b');
    expect(faviconHref('normal', '/favicon.svg')).toBe('/favicon.svg');
  });
});

describe('nextLostAt', () => {
  it('records the first lost moment and keeps it', () => {
    let at = nextLostAt(null, 'connected', 1);
    expect(at).toBeNull();
    at = nextLostAt(at, 'reconnecting', 100);
    expect(at).toBe(100);
    at = nextLostAt(at, 'offline', 200);
    expect(at).toBe(100);
    at = nextLostAt(at, 'connecting', 300);
    expect(at).toBe(100);
    expect(nextLostAt(at, 'connected', 400)).toBeNull();
  });
  it('has no loss time while first connecting', () => {
    expect(nextLostAt(null, 'connecting', 5)).toBeNull();
  });
});
