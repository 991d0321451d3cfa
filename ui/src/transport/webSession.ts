// Relay Web gateway session for the browser: mode detection, passphrase sign-in to an HttpOnly
// cookie session, the CSRF token and the short-lived app token — all memory-only — with
// refresh before expiry, in-place re-authentication, resuming after a page reload (the HttpOnly
// cookie survives it; the CSRF token is fetched again, never persisted) and sign-out. Every credential-installing
// step is tied to an epoch: sign-out (or a new sign-in) bumps it, so a refresh or re-auth that
// completes afterwards cannot reinstall credentials.
import { getTokenPayload } from 'pocketbase';
import { RETRY_AFTER_FIELD, toTransportError } from './pbErrors';
import { parseRetryAfter } from './retryAfter';
import type { TransportError } from './types';

export const MODE_PATH = '/web/api/mode';
export const SESSION_PATH = '/web/api/session';
export const REFRESH_PATH = '/web/api/session/refresh';
export const RESUME_PATH = '/web/api/session/resume';
export const LOGOUT_PATH = '/web/api/session/logout';
export const CONNECTION_PATH = '/web/api/connection';
export const LOGS_PATH = '/web/api/logs';
export const CSRF_HEADER = 'X-Relay-CSRF';

/** Session refresh cadence (well inside the 1 h idle limit), and the margin kept before any expiry. */
export const SESSION_REFRESH_MS = 20 * 60_000;
export const EXPIRY_MARGIN_MS = 60_000;
export const MIN_DELAY_MS = 5_000;
export const RETRY_DELAY_MS = 15_000;
const FALLBACK_TOKEN_LIFETIME_MS = 15 * 60_000;

type FetchFn = (url: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

export interface WebModeInfo {
  mode: 'relay-web';
  cleartextHttp: boolean;
}

/** GET /web/api/mode: 200 {mode:"relay-web"} on the gateway, 404 on the data API. */
export async function detectWebMode(origin: string, fetchImpl: FetchFn = fetch, timeoutMs = 5_000): Promise<WebModeInfo | null> {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), timeoutMs);
  try {
    const res = await fetchImpl(origin + MODE_PATH, { method: 'GET', credentials: 'same-origin', signal: ctl.signal });
    if (!res.ok) return null;
    const body = (await res.json().catch(() => null)) as { mode?: unknown; cleartextHttp?: unknown } | null;
    if (!body || body.mode !== 'relay-web') return null;
    return { mode: 'relay-web', cleartextHttp: body.cleartextHttp !== false };
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/** Milliseconds from now until the token should be renewed (its lifetime minus a margin). */
export function tokenRenewDelayMs(token: string): number {
  const p = getTokenPayload(token) as { exp?: unknown; iat?: unknown };
  let lifetime = FALLBACK_TOKEN_LIFETIME_MS;
  // exp - iat is immune to clock skew between this machine and the server.
  if (typeof p.exp === 'number' && typeof p.iat === 'number' && p.exp > p.iat) lifetime = (p.exp - p.iat) * 1000;
  else if (typeof p.exp === 'number') lifetime = p.exp * 1000 - Date.now();
  return Math.max(MIN_DELAY_MS, lifetime - EXPIRY_MARGIN_MS);
}

/** When the session should be refreshed, given its `expiresAt` ("2026-12-02 22:22:48.392Z"). */
export function sessionRefreshDelayMs(expiresAt: unknown, now: number): number {
  const at = typeof expiresAt === 'string' ? Date.parse(expiresAt.replace(' ', 'T')) : NaN;
  const untilExpiry = Number.isFinite(at) ? at - now - EXPIRY_MARGIN_MS : SESSION_REFRESH_MS;
  return Math.max(MIN_DELAY_MS, Math.min(SESSION_REFRESH_MS, untilExpiry));
}

export type ReauthOutcome = 'ok' | 'rejected' | 'network';

export interface WebSessionHooks {
  /** Install the app-user token for the SDK (memory-only auth store). */
  installToken(token: string, record: Record<string, unknown> | null): void;
  /** The gateway definitively refused the session: credentials are gone. */
  rejected(): void;
  /** The gateway could not be reached during a background step. */
  unreachable(): void;
  /** A new token replaced the old one after re-authentication. */
  replaced(): void;
}

export class WebSession {
  private csrf: string | null = null;
  private epoch = 0;
  private sessionTimer?: ReturnType<typeof setTimeout>;
  private tokenTimer?: ReturnType<typeof setTimeout>;
  private reauth: Promise<ReauthOutcome> | null = null;

  constructor(
    private readonly origin: string,
    private readonly fetchFn: () => FetchFn,
    private readonly hooks: WebSessionHooks,
    private readonly now: () => number = Date.now,
  ) {}

  get csrfToken(): string | null {
    return this.csrf;
  }

  get active(): boolean {
    return this.csrf !== null;
  }

  /** POST /web/api/session, then POST /web/api/connection. Rejects with TransportError. */
  async signIn(passphrase: string): Promise<void> {
    this.clear();
    const epoch = this.epoch;
    const res = await this.post(SESSION_PATH, { passphrase }, null);
    const body = await this.json(res);
    if (!res.ok) throw this.error(res, body, true);
    if (epoch !== this.epoch) throw this.stale();
    const csrf = typeof body.csrfToken === 'string' ? body.csrfToken : '';
    if (!csrf) throw toTransportError({ status: 500, response: { message: 'Relay Web sent no CSRF token.' } });
    this.csrf = csrf;
    this.scheduleSessionRefresh(body.expiresAt, epoch);
    const outcome = await this.connect(epoch);
    if (outcome !== 'ok') {
      this.clear();
      throw outcome === 'network'
        ? toTransportError({ status: 0 })
        : toTransportError({ status: 401, response: { message: 'Relay Web refused the connection.' } });
    }
  }

  /**
   * After a page reload: the HttpOnly cookie may still name a live session. POST
   * /web/api/session/resume (same-origin, cookie only) returns its CSRF token; then the app
   * token is fetched as after a sign-in. Resolves false (and keeps nothing) when there is no
   * live session (204) or the gateway refuses or cannot be reached: the sign-in screen follows.
   * Never throws.
   */
  async resume(): Promise<boolean> {
    this.clear();
    const epoch = this.epoch;
    let res: Response;
    try {
      res = await this.post(RESUME_PATH, undefined, null);
    } catch {
      return false;
    }
    const body = await this.json(res);
    const csrf = typeof body.csrfToken === 'string' ? body.csrfToken : '';
    if (!res.ok || !csrf || epoch !== this.epoch) return false;
    this.csrf = csrf;
    this.scheduleSessionRefresh(body.expiresAt, epoch);
    if ((await this.connect(epoch)) === 'ok') return true;
    if (epoch === this.epoch) this.clear();
    return false;
  }

  /** Explicit sign-out: credentials go at once, in-flight refreshes are void, logout is sent. */
  signOut(): void {
    const csrf = this.csrf;
    this.clear();
    if (csrf === null) return;
    void this.post(LOGOUT_PATH, undefined, csrf).catch(() => {});
  }

  /** Credentials gone without telling the server (it already refused them). */
  clear(): void {
    this.epoch++;
    this.csrf = null;
    this.reauth = null;
    clearTimeout(this.sessionTimer);
    clearTimeout(this.tokenTimer);
  }

  /**
   * After a gateway 401: ask for a fresh app token once (single-flight). 'rejected' means the
   * web session itself is gone (sign in again); 'network' leaves everything as it was.
   */
  reauthenticate(): Promise<ReauthOutcome> {
    if (this.csrf === null) return Promise.resolve('rejected');
    const epoch = this.epoch;
    this.reauth ??= this.connect(epoch).then((outcome) => {
      if (epoch === this.epoch) this.reauth = null;
      if (outcome === 'ok') this.hooks.replaced();
      return outcome;
    });
    return this.reauth;
  }

  /** POST /web/api/logs (session + CSRF). Never throws. */
  async sendLog(entry: { level: string; module: string; message: string }): Promise<boolean> {
    if (this.csrf === null) return false;
    try {
      const res = await this.post(LOGS_PATH, entry, this.csrf);
      return res.ok;
    } catch {
      return false;
    }
  }

  private async connect(epoch: number): Promise<ReauthOutcome> {
    let res: Response;
    try {
      res = await this.post(CONNECTION_PATH, undefined, this.csrf);
    } catch {
      return epoch === this.epoch ? 'network' : 'rejected';
    }
    const body = await this.json(res);
    if (epoch !== this.epoch) return 'rejected'; // signed out meanwhile: install nothing
    if (res.status === 401 || res.status === 403) {
      this.rejectSession();
      return 'rejected';
    }
    const token = typeof body.token === 'string' ? body.token : '';
    if (!res.ok || !token) return 'network';
    const record = body.record && typeof body.record === 'object' ? (body.record as Record<string, unknown>) : null;
    this.hooks.installToken(token, record);
    clearTimeout(this.tokenTimer);
    this.tokenTimer = setTimeout(() => void this.renewToken(epoch), tokenRenewDelayMs(token));
    return 'ok';
  }

  private async renewToken(epoch: number): Promise<void> {
    if (epoch !== this.epoch) return;
    const outcome = await this.connect(epoch);
    if (outcome === 'network' && epoch === this.epoch) {
      this.hooks.unreachable();
      this.tokenTimer = setTimeout(() => void this.renewToken(epoch), RETRY_DELAY_MS);
    }
  }

  private scheduleSessionRefresh(expiresAt: unknown, epoch: number): void {
    clearTimeout(this.sessionTimer);
    this.sessionTimer = setTimeout(() => void this.refreshSession(epoch), sessionRefreshDelayMs(expiresAt, this.now()));
  }

  /** POST /web/api/session/refresh: rotates the cookie and the CSRF token (the old one dies). */
  private async refreshSession(epoch: number): Promise<void> {
    if (epoch !== this.epoch || this.csrf === null) return;
    let res: Response;
    try {
      res = await this.post(REFRESH_PATH, undefined, this.csrf);
    } catch {
      if (epoch !== this.epoch) return;
      this.hooks.unreachable();
      this.sessionTimer = setTimeout(() => void this.refreshSession(epoch), RETRY_DELAY_MS);
      return;
    }
    const body = await this.json(res);
    if (epoch !== this.epoch) return; // signed out while refreshing: keep nothing
    if (res.status === 401 || res.status === 403) return this.rejectSession();
    const csrf = typeof body.csrfToken === 'string' ? body.csrfToken : '';
    if (!res.ok || !csrf) {
      this.sessionTimer = setTimeout(() => void this.refreshSession(epoch), RETRY_DELAY_MS);
      return;
    }
    this.csrf = csrf;
    this.scheduleSessionRefresh(body.expiresAt, epoch);
  }

  private rejectSession(): void {
    this.clear();
    this.hooks.rejected();
  }

  private post(path: string, body: unknown, csrf: string | null): Promise<Response> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (csrf) headers[CSRF_HEADER] = csrf;
    return this.fetchFn()(this.origin + path, {
      method: 'POST',
      credentials: 'same-origin',
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  private async json(res: Response): Promise<Record<string, unknown>> {
    const b = await res.json().catch(() => null);
    return b && typeof b === 'object' ? (b as Record<string, unknown>) : {};
  }

  private error(res: Response, body: Record<string, unknown>, signIn: boolean): TransportError {
    const response: Record<string, unknown> = { ...body };
    if (res.status === 429) response[RETRY_AFTER_FIELD] = parseRetryAfter(res.headers.get('Retry-After'), this.now());
    return toTransportError({ status: res.status, response }, { signIn });
  }

  private stale(): TransportError {
    return toTransportError({ status: 0, isAbort: true });
  }
}
