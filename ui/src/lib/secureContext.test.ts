// The secure-context guard for ui/src (issue #38): Relay Web and LAN browsers open Relay over plain
// http:// by the server's name, which is not a secure context, so a Web API reserved to secure
// pages is missing there and calling it blanked the page after sign-in. Every app source file
// (tests and test scaffolding aside; comments ignored) is scanned: each such API may appear only
// in its one wrapper, which has a path that works on a plain-http page — the UUID generator
// nowhere (lib/ids uses getRandomValues), WebCrypto's digest only in knowledge/pdfVerify (with
// @noble/hashes when missing), the async clipboard and ClipboardItem only in lib/clipboard (the
// copy command when missing) — and the rest (notifications, service workers, storage and lock
// managers, pickers, media capture, …) nowhere until such a wrapper exists. Also isSecurePage.
import { describe, expect, it } from 'vitest';
import { isSecurePage } from './secureContext';

interface Rule {
  api: string;
  pattern: RegExp;
  /** Paths under ui/src that may use it (its wrapper), if any. */
  allowedIn: string[];
}

const RULES: Rule[] = [
  { api: 'crypto.randomUUID', pattern: /randomUUID/, allowedIn: [] },
  { api: 'crypto.subtle', pattern: /\.\s*subtle\b/, allowedIn: ['features/knowledge/pdfVerify.ts'] },
  { api: 'navigator.clipboard', pattern: /\bnavigator\s*\??\.\s*clipboard\b|['"]clipboard['"]\s+in\s+navigator\b/, allowedIn: ['lib/clipboard.ts'] },
  { api: 'ClipboardItem', pattern: /\bClipboardItem\b/, allowedIn: ['lib/clipboard.ts'] },
  { api: 'Notification', pattern: /\bnew\s+Notification\s*\(|\bNotification\s*\??\.\s*(?:requestPermission|permission)\b/, allowedIn: [] },
  { api: 'serviceWorker / PushManager', pattern: /\bserviceWorker\b|\bPushManager\b/, allowedIn: [] },
  {
    api: 'navigator storage, locks, wake lock, share, credentials, media devices, geolocation, USB/Bluetooth/HID/serial, keyboard, client hints',
    pattern: /\bnavigator\s*\??\.\s*(?:storage|locks|wakeLock|share|canShare|credentials|mediaDevices|geolocation|usb|bluetooth|hid|serial|keyboard|userAgentData|requestMIDIAccess|getInstalledRelatedApps)\b/,
    allowedIn: [],
  },
  {
    api: 'file pickers, media capture, payments, Cache API, cookieStore, worklets, WebTransport, shared memory',
    pattern: /\b(?:showSaveFilePicker|showOpenFilePicker|showDirectoryPicker|getUserMedia|getDisplayMedia|PaymentRequest|IdleDetector|EyeDropper|cookieStore|audioWorklet|AudioWorklet|WebTransport|SharedArrayBuffer)\b|\bcaches\s*\.\s*(?:open|match|keys|has|delete)\b/,
    allowedIn: [],
  },
];

/** The source without its comments (a `//` right after `:` — a URL in a string — is kept). */
export function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, (block) => block.replace(/[^\n]/g, ' ')).replace(/(^|[^:\\])\/\/.*$/gm, '$1');
}

/** `path:line  API` for every use of a rule's API outside its wrapper. */
export function violations(files: Record<string, string>, rules: Rule[] = RULES): string[] {
  const found: string[] = [];
  for (const [path, source] of Object.entries(files)) {
    withoutComments(source).split('\n').forEach((line, i) => {
      for (const rule of rules) if (rule.pattern.test(line) && !rule.allowedIn.includes(path)) found.push(`${path}:${i + 1}  ${rule.api}`);
    });
  }
  return found;
}

const isTestCode = (path: string) => /\.test\.tsx?$/.test(path) || ['lib/domTest.ts', 'lib/nonSecureTest.ts', 'transport/testkit.ts'].includes(path);

/** Every app source file under ui/src, keyed by its path there. */
const SOURCES: Record<string, string> = Object.fromEntries(
  Object.entries(import.meta.glob<string>('/src/**/*.{ts,tsx}', { query: '?raw', import: 'default', eager: true }))
    .map(([path, source]) => [path.replace(/^\/src\//, ''), source] as const)
    .filter(([path]) => !isTestCode(path)),
);

describe('secure-context-only Web APIs in ui/src', () => {
  it('reads the whole app source', () => {
    expect(Object.keys(SOURCES).length).toBeGreaterThan(100);
    for (const path of ['lib/clipboard.ts', 'lib/ids.ts', 'features/shell/usePresence.ts', 'features/knowledge/pdfVerify.ts', 'main.tsx']) expect(SOURCES).toHaveProperty([path]);
    expect(Object.keys(SOURCES).filter(isTestCode)).toEqual([]);
  });

  it('are used only inside their wrappers, which have a plain-http path', () => {
    expect(violations(SOURCES)).toEqual([]);
  });

  it('the wrappers are where the rules say', () => {
    for (const rule of RULES) for (const path of rule.allowedIn) expect(SOURCES).toHaveProperty([path]);
    expect(SOURCES['lib/clipboard.ts']).toMatch(/execCommand\('copy'\)/);
    expect(SOURCES['features/knowledge/pdfVerify.ts']).toMatch(/@noble\/hashes/);
  });

  it('the scan catches a use in code and ignores one in a comment', () => {
    const sample = {
      'features/x.ts': "// crypto.randomUUID() is not here\nconst id = crypto.randomUUID();\n/* navigator.clipboard */ const url = 'http://relay.lan:8090';",
      'features/y.tsx': "await navigator.clipboard.writeText(t); new ClipboardItem({}); await crypto.subtle.digest('SHA-256', b); new Notification('x');",
      'lib/clipboard.ts': "await navigator.clipboard.write([new ClipboardItem({})]);",
    };
    expect(violations(sample)).toEqual([
      'features/x.ts:2  crypto.randomUUID',
      'features/y.tsx:1  crypto.subtle',
      'features/y.tsx:1  navigator.clipboard',
      'features/y.tsx:1  ClipboardItem',
      'features/y.tsx:1  Notification',
    ]);
  });
});

describe('isSecurePage', () => {
  it('is false only when the browser says the page is not a secure context', () => {
    expect(isSecurePage({ isSecureContext: false })).toBe(false);
    expect(isSecurePage({ isSecureContext: true })).toBe(true);
    expect(isSecurePage({})).toBe(true);
  });
});
