// Whether this page is a secure context. Relay Web and a browser on the LAN open Relay over plain
// http:// by the server's name (http://relay-server.lan:8090), which browsers do not treat as
// secure, so the Web APIs reserved to secure pages are missing there: WebCrypto's UUIDs and
// digests, the async clipboard and ClipboardItem, notifications, service workers and the like.
// Relay reaches each of those through one wrapper with a path that works on such a page
// (lib/ids, lib/clipboard, knowledge/pdfVerify); this module only tells a feature which case it
// is in, so the one thing that cannot work there (copying a picture) can say why.

/** False only when the browser says this page is not a secure context (`isSecureContext`); a
 * scope that does not say (an old browser, a test) counts as secure and is judged by feature checks. */
export function isSecurePage(scope: { isSecureContext?: boolean } = globalThis): boolean {
  return scope.isSecureContext !== false;
}
