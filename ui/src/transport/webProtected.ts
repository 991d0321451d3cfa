// Relay Web's protected session (surface 'web'): the Administration screen's ProtectedSession
// over the gateway's server-mediated routes under /web/api/protected — status, sign-in, fresh
// password, lock, the browser-allowed commands and the Wiki's chunked PDF upload (./webWikiUpload).
// Requests go through the transport's `webFetch` (session cookie, `X-Relay-CSRF` on writes, and the
// web session's own re-authentication when the gateway session itself expired); answers are read
// with the desktop's parsers (adminStatus, adminSnapshot) and refusals become the same
// BridgeRefusal codes as on the desktop bridge, so the controllers handle them identically.
// Passwords only ever go into a request body: nothing here keeps them.
import { BridgeRefusal, type BridgeCode } from './desktop';
import {
  adminSnapshot,
  adminStatus,
  type AdminCommandName,
  type AdminSnapshot,
  type AdminStatus,
  type WikiUploadEvent,
  type WikiUploadSummary,
} from './desktopAdmin';
import type { ProtectedSession } from './protectedSession';
import { parseRetryAfter } from './retryAfter';
import { chooseFiles, uploadWikiFiles, type FileChooser } from './webWikiUpload';

export const PROTECTED_PATH = '/web/api/protected';

/** `transport.webFetch`: a same-origin gateway request with the web session's plumbing. */
export type GatewayFetch = (path: string, init?: RequestInit) => Promise<Response>;

/** What the stale-revision refusal reads as (wikiModel.isStale matches "changed meanwhile"). */
export const STALE_MESSAGE = 'the record changed meanwhile; reload and retry';

const NETWORK_MESSAGE = 'Relay Web could not reach the Relay server. Check the connection and try again.';

/** The gateway's refusal codes → the bridge's (refusals the desktop maps the same way). */
const CODES: Record<string, BridgeCode> = {
  locked: 'locked',
  password_required: 'passwordRequired',
  rejected: 'rejected',
  forbidden: 'forbidden',
  not_on_the_web: 'forbidden',
  invalid: 'invalid',
  rate_limited: 'rateLimited',
  stale_revision: 'rejected',
  unavailable: 'unavailable',
  busy: 'unavailable',
  // The web session itself ended (its re-authentication already ran): the protected one with it.
  no_session: 'locked',
};

/** A code from the HTTP status alone, for refusals without a known `data.code`. */
function codeOfStatus(status: number): BridgeCode | null {
  if (status === 401) return 'rejected';
  if (status === 403) return 'forbidden';
  if (status === 409) return 'rejected';
  if (status === 429) return 'rateLimited';
  if (status === 400 || status === 413 || status === 422) return 'invalid';
  if (status === 502 || status === 503 || status === 504) return 'unavailable';
  return null;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The `data.code` of a gateway refusal body, or ''. */
export function refusalCode(body: unknown): string {
  const data = isObject(body) && isObject(body.data) ? body.data : null;
  return data && typeof data.code === 'string' ? data.code : '';
}

/** A refusal of the protected routes: the bridge's code for the screen, and the gateway's own
 * (`busy`, `not_on_the_web`, `stale_revision`…) for whoever needs the difference. */
export class WebRefusal extends BridgeRefusal {
  constructor(message: string, code: BridgeCode | null, retryAfterSeconds: number | null, readonly gatewayCode: string) {
    super(message, code, retryAfterSeconds);
  }
}

/** A non-2xx gateway answer as the BridgeRefusal the screen expects. */
export function refusalOf(res: Response, body: unknown, nowMs: number): WebRefusal {
  const raw = refusalCode(body);
  const code = CODES[raw] ?? codeOfStatus(res.status);
  const serverMessage = isObject(body) && typeof body.message === 'string' ? body.message.trim() : '';
  let message = serverMessage || `The Relay server refused the request (HTTP ${res.status}).`;
  if (raw === 'stale_revision' && !/changed meanwhile|stale/i.test(message)) message = STALE_MESSAGE;
  const retry = code === 'rateLimited' ? (parseRetryAfter(res.headers.get('Retry-After'), nowMs) ?? null) : null;
  return new WebRefusal(message, code, retry, raw);
}

export interface WebProtectedOptions {
  now?: () => number;
  /** Waits between `busy` retries (tests make it instant). */
  sleep?: (ms: number) => Promise<void>;
  /** The PDF chooser (default: a hidden `<input type="file">` on the page). */
  choose?: FileChooser;
}

export class WebProtectedSession implements ProtectedSession {
  readonly surface = 'web' as const;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly choose: FileChooser;

  constructor(private readonly gateway: GatewayFetch, opts: WebProtectedOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.choose = opts.choose ?? chooseFiles;
  }

  async adminStatus(): Promise<AdminStatus> {
    return adminStatus(await this.send('GET', '/status'));
  }

  async adminSignIn(username: string, password: string): Promise<AdminStatus> {
    return adminStatus(await this.send('POST', '/sign-in', { username, password }));
  }

  async adminConfirmPassword(password: string): Promise<AdminStatus> {
    return adminStatus(await this.send('POST', '/confirm', { password }));
  }

  async adminLock(): Promise<AdminStatus> {
    return adminStatus(await this.send('POST', '/lock', {}));
  }

  /** POST /command: resolves with the answer's `result` (the command's own JSON answer). */
  async adminCommand(command: AdminCommandName, payload: Record<string, unknown>, expectedRevision: number | null = null): Promise<unknown> {
    const answer = await this.send('POST', '/command', { command, payload, expectedRevision });
    return isObject(answer) ? (answer.result ?? null) : null;
  }

  async adminSnapshot(): Promise<AdminSnapshot> {
    return adminSnapshot(await this.adminCommand('admin.snapshot', {}, null));
  }

  /** The page's PDF chooser (several files, or one when replacing), then the chunked upload. */
  async adminWikiUpload(replacementDocumentId: string | null, onEvent: (event: WikiUploadEvent) => void): Promise<WikiUploadSummary> {
    const files = await this.choose(replacementDocumentId === null);
    if (!files || files.length === 0) return { batchId: null, files: [] };
    return uploadWikiFiles(files, replacementDocumentId, onEvent, {
      command: (command, payload) => this.adminCommand(command, payload, null),
      chunk: (query, bytes) => this.chunk(query, bytes),
      sleep: this.sleep,
    });
  }

  /** POST /wiki/chunks?… with the raw bytes; a refusal (`busy` included) rejects as WebRefusal. */
  private async chunk(query: URLSearchParams, bytes: Uint8Array): Promise<unknown> {
    return this.send('POST', `/wiki/chunks?${query.toString()}`, bytes);
  }

  /** One request; the answer's JSON, or a BridgeRefusal. */
  private async send(method: 'GET' | 'POST', path: string, body?: Record<string, unknown> | Uint8Array): Promise<unknown> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    let payload: BodyInit | undefined;
    if (body instanceof Uint8Array) {
      headers['Content-Type'] = 'application/octet-stream';
      payload = body as BodyInit;
    } else if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    let res: Response;
    try {
      res = await this.gateway(PROTECTED_PATH + path, { method, headers, body: payload, cache: 'no-store' });
    } catch {
      throw new BridgeRefusal(NETWORK_MESSAGE, 'unavailable');
    }
    const answer: unknown = await res.json().catch(() => null);
    if (!res.ok) throw refusalOf(res, answer, this.now());
    return answer;
  }
}
