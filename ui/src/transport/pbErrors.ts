// Maps pocketbase SDK errors (ClientResponseError) and raw failures onto the
// UI-level TransportError. Used only by the PocketBase transport.
import { TransportError, isTransportError, type FieldError, type TransportErrorKind } from './types';

/** Key under which the transport's afterSend hook stashes a 429's Retry-After seconds. */
export const RETRY_AFTER_FIELD = '__relayRetryAfterSeconds';

interface SdkErrorLike {
  status?: unknown;
  isAbort?: unknown;
  response?: unknown;
  message?: unknown;
}

/** `{field: {code, message}}` from an error body's `data` (anything else is skipped). */
export function pickFieldErrors(raw: unknown): Record<string, FieldError> {
  const out: Record<string, FieldError> = {};
  if (!raw || typeof raw !== 'object') return out;
  for (const [field, v] of Object.entries(raw as Record<string, unknown>)) {
    if (v && typeof v === 'object') {
      const { code, message } = v as { code?: unknown; message?: unknown };
      out[field] = {
        code: typeof code === 'string' ? code : 'invalid',
        message: typeof message === 'string' ? message : 'Invalid value.',
      };
    }
  }
  return out;
}

function kindFor(status: number, isAbort: boolean, signIn: boolean): TransportErrorKind {
  if (status === 0) return isAbort ? 'aborted' : 'network';
  if (status === 401 || status === 403) return 'rejected';
  // PocketBase answers a wrong identity/password with 400 "Failed to authenticate."
  if (status === 400 && signIn) return 'rejected';
  if (status === 429) return 'rate-limited';
  if (status === 400) return 'invalid';
  if (status === 404) return 'not-found';
  return 'server';
}

export function toTransportError(err: unknown, ctx: { signIn?: boolean } = {}): TransportError {
  if (isTransportError(err)) return err;
  const e = (err && typeof err === 'object' ? err : {}) as SdkErrorLike;
  const status = typeof e.status === 'number' ? e.status : 0;
  const isAbort = e.isAbort === true;
  const body = (e.response && typeof e.response === 'object' ? e.response : {}) as Record<string, unknown>;
  const kind = kindFor(status, isAbort, ctx.signIn === true);

  let message: string;
  if (kind === 'network') message = 'Cannot reach the Relay server.';
  else if (kind === 'aborted') message = 'The request was cancelled.';
  else if (typeof body.message === 'string' && body.message) message = body.message;
  else if (typeof e.message === 'string' && e.message) message = e.message;
  else message = `Request failed (${status}).`;

  const retry = body[RETRY_AFTER_FIELD];
  return new TransportError({
    kind,
    status,
    message,
    fieldErrors: pickFieldErrors(body.data),
    retryAfterSeconds: typeof retry === 'number' ? retry : undefined,
  });
}

/**
 * The desktop shell's refusals (`{ code, message }` from app/desktop/src/bridge.rs `BridgeError`)
 * in the UI's terms: a definitive rejection stays a rejection, an unreachable server or
 * coordinator is a network failure, a rate limit carries its retry seconds.
 */
export function fromBridgeError(err: unknown): TransportError {
  if (isTransportError(err)) return err;
  const { code, message } = (err && typeof err === 'object' ? err : {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' && message ? message : 'The desktop shell refused the request.';
  switch (code) {
    case 'rejected':
      return new TransportError({ kind: 'rejected', status: 400, message: 'Failed to authenticate.' });
    case 'rateLimited':
      return new TransportError({ kind: 'rate-limited', status: 429, message: 'Too many attempts.', retryAfterSeconds: typeof message === 'number' ? message : undefined });
    case 'invalid':
      return new TransportError({ kind: 'invalid', status: 400, message: text });
    case 'forbidden':
      return new TransportError({ kind: 'rejected', status: 403, message: text });
    default:
      return new TransportError({ kind: 'network', status: 0, message: text });
  }
}
