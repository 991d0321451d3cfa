// Attention signals for the whole window: from the app state (how many alarms are due, the
// connection state) to the window title prefix, the favicon variant (a red dot drawn into the
// app's SVG icon, as a data: URL) and the connection-loss time the banner shows. Pure: it
// reads no DOM and no clock (the caller passes `now`); ./useAttention applies the result.
import type { ConnectionState } from '../../transport/types';

/** Words only: a window title cannot draw the app's icons, and an emoji needs a font Debian lacks. */
export const ALARM_PREFIX = 'Alarm due — ';
export const LOST_PREFIX = 'Connection lost — ';

/** States in which the operator has lost the server (the status bar's "lost" set). */
const LOST: ReadonlySet<ConnectionState> = new Set(['offline', 'reconnecting', 'auth-failed']);

export const isConnectionLost = (s: ConnectionState) => LOST.has(s);

export interface AttentionInput {
  /** Pending alarms whose effective time has come (lib/alarms dueAlarms). */
  due: number;
  connection: ConnectionState;
}

export interface Attention {
  alarm: boolean;
  lost: boolean;
  /** Prepended to the base title; '' when nothing needs attention. */
  titlePrefix: string;
  /** Which favicon to show. */
  favicon: 'normal' | 'alert';
}

export function attentionFor({ due, connection }: AttentionInput): Attention {
  const alarm = due > 0;
  const lost = isConnectionLost(connection);
  return {
    alarm,
    lost,
    titlePrefix: (alarm ? ALARM_PREFIX : '') + (lost ? LOST_PREFIX : ''),
    favicon: alarm || lost ? 'alert' : 'normal',
  };
}

/** The window title: the prefix once, never stacked on a title that already carries one. */
export function attentionTitle(base: string, a: Pick<Attention, 'titlePrefix'>): string {
  return a.titlePrefix + stripPrefixes(base);
}

export function stripPrefixes(title: string): string {
  let t = title;
  for (;;) {
    if (t.startsWith(ALARM_PREFIX)) t = t.slice(ALARM_PREFIX.length);
    else if (t.startsWith(LOST_PREFIX)) t = t.slice(LOST_PREFIX.length);
    else return t;
  }
}

/** ui/public/favicon.svg, the icon the red-dot variant is drawn on. */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#060608"/><path d="M8 22V10h8a4 4 0 0 1 0 8h-8m8 0 6 4" fill="none" stroke="#4f8cff" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"/></svg>';
export const ALERT_DOT = '<circle cx="24" cy="8" r="7" fill="#e5383b" stroke="#060608" stroke-width="2"/>';

/** `svg` with a red dot in the top-right corner (drawn last, so on top). */
export function withAlertDot(svg: string): string {
  const end = svg.lastIndexOf('</svg>');
  if (end < 0) throw new Error('not an SVG document');
  return svg.slice(0, end) + ALERT_DOT + svg.slice(end);
}

export const svgDataUrl = (svg: string) => `data:image/svg+xml,${encodeURIComponent(svg)}`;

/** The favicon href for `variant`; `normal` is the page's own (static) icon. */
export function faviconHref(variant: Attention['favicon'], normal: string): string {
  return variant === 'alert' ? svgDataUrl(withAlertDot(FAVICON_SVG)) : normal;
}

/**
 * When the connection was lost: kept from the first lost state until it is back (connecting
 * between two lost states keeps it too); null while connected.
 */
export function nextLostAt(prev: number | null, connection: ConnectionState, now: number): number | null {
  if (connection === 'connected') return null;
  if (isConnectionLost(connection)) return prev ?? now;
  return prev;
}
