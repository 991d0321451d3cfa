// Administration screen, pure helpers: role and kind labels, what the signed-in role may do (only
// to decide what to show — the server enforces every rule itself), the "Locks at HH:MM" clock, the
// pairing code countdown, and the operator-facing sentence for a bridge refusal (never with a
// password in it).
import { BridgeRefusal, type AdminAccount, type AdminDevice, type AdminRole, type AdminSession, type AdminSnapshot } from '../../transport/desktop';
import type { ProtectedSurface } from '../../transport/protectedSession';

/** How often the screen asks for the admin status while it is open (an idle lock shows the sign-in form). */
export const ADMIN_POLL_MS = 30_000;

/** Shown on the sign-in form when the session locked (idle, or refused as `locked`). */
export const LOCKED_MESSAGE = 'The administration session locked. Sign in again.';

const ROLE_LABELS: Record<AdminRole, string> = { owner: 'Owner', administrator: 'Administrator', publisher: 'Publisher' };

export function roleLabel(role: AdminRole | null | undefined): string {
  return role ? ROLE_LABELS[role] : '—';
}

export function kindLabel(kind: AdminAccount['kind']): string {
  return kind === 'administrator' ? 'Administrator' : 'Publisher';
}

/** "Ops Lead (ops.lead)", or the username alone when there is no display name. */
export function accountName(a: Pick<AdminAccount, 'displayName' | 'username'> | undefined | null): string {
  if (!a) return '—';
  return a.displayName && a.displayName !== a.username ? `${a.displayName} (${a.username})` : a.username;
}

/** What the signed-in role may do, for showing and hiding controls. */
export interface Abilities {
  /** The kinds of account this role may create. */
  createKinds: AdminAccount['kind'][];
  /** Rename, activate/deactivate, set or reset the password of this account. */
  manageAccount(a: AdminAccount): boolean;
  /** Pair a device to this account and revoke its devices. */
  manageDevices(a: AdminAccount): boolean;
  /** Set and reset passwords (with manageAccount): on the server PC only. */
  setPasswords: boolean;
  /** Create pairing codes (with manageDevices): on the server PC only. */
  pairDevices: boolean;
  assignPublisher: boolean;
  transferOwnership: boolean;
  verifyAudit: boolean;
  /** Set and remove the company and footer logos. */
  manageLogos: boolean;
  /** The Dynatrace environment, scope and platform token. */
  manageDynatrace: boolean;
  /** Roll back to a retained build (the Owner on the server PC only). */
  manageRecovery: boolean;
}

/** What no surface but the server PC's own ('local') offers: passwords, pairing codes, logos. */
const SERVER_PC_ONLY = { setPasswords: false, pairDevices: false, manageLogos: false, manageRecovery: false } as const;

/**
 * Owner: everything (a rollback to a retained build only on the server PC). Administrator: Publisher-kind accounts, their devices (and its own), the
 * Publisher assignment, the logos, Dynatrace. Publisher (or no session): nothing. On a paired
 * laptop ('laptop') the same but no password, no pairing code and no logos; on Relay Web ('web')
 * also no Dynatrace (its accounts view is read-only whatever this says).
 */
export function abilities(session: AdminSession | null, surface: ProtectedSurface = 'local'): Abilities {
  const role = session?.role ?? null;
  let can: Abilities;
  if (role === 'owner') {
    can = {
      createKinds: ['publisher', 'administrator'], manageAccount: () => true, manageDevices: () => true, setPasswords: true, pairDevices: true,
      assignPublisher: true, transferOwnership: true, verifyAudit: true, manageLogos: true, manageDynatrace: true, manageRecovery: true,
    };
  } else if (role === 'administrator') {
    const publisherKind = (a: AdminAccount) => a.kind === 'publisher';
    can = {
      createKinds: ['publisher'],
      manageAccount: publisherKind,
      manageDevices: (a) => publisherKind(a) || a.username === session?.username,
      setPasswords: true,
      pairDevices: true,
      assignPublisher: true,
      transferOwnership: false,
      verifyAudit: true,
      manageLogos: true,
      manageDynatrace: true,
      manageRecovery: false,
    };
  } else {
    return {
      createKinds: [], manageAccount: () => false, manageDevices: () => false, setPasswords: false, pairDevices: false,
      assignPublisher: false, transferOwnership: false, verifyAudit: false, manageLogos: false, manageDynatrace: false,
      manageRecovery: false,
    };
  }
  if (surface === 'laptop') return { ...can, ...SERVER_PC_ONLY };
  if (surface === 'web') return { ...can, ...SERVER_PC_ONLY, manageDynatrace: false };
  return can;
}

/** The account's devices, in the snapshot's order. */
export function devicesOf(snapshot: AdminSnapshot, accountId: string): AdminDevice[] {
  return snapshot.devices.filter((d) => d.accountId === accountId);
}

export function accountById(snapshot: AdminSnapshot | null, id: string | null | undefined): AdminAccount | undefined {
  return id ? snapshot?.accounts.find((a) => a.id === id) : undefined;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** "14:05" (local time, 24-hour) for an epoch time in ms; "—" without one. */
export function formatClock(ms: number | null | undefined): string {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) return '—';
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** "9:59" for the time left (whole seconds, rounded up); null once nothing is left. */
export function formatCountdown(remainingMs: number): string | null {
  if (!Number.isFinite(remainingMs) || remainingMs <= 0) return null;
  const s = Math.ceil(remainingMs / 1000);
  return `${Math.floor(s / 60)}:${pad(s % 60)}`;
}

/** The pairing code's expiry (`expiresAtMs`, epoch milliseconds on the server PC, which is this
 * machine); anything else counts as already expired. */
export function pairingExpiry(expiresAtMs: unknown, nowMs: number): number {
  return typeof expiresAtMs === 'number' && Number.isFinite(expiresAtMs) ? expiresAtMs : nowMs;
}

/** `text` with every occurrence of each (non-empty) secret masked. */
export function scrub(text: string, secrets: readonly string[] = []): string {
  return secrets.reduce((t, s) => (s ? t.split(s).join('•••') : t), text);
}

/** The seconds a `rateLimited` refusal asks to wait, or null when it does not say. */
export function retrySeconds(e: BridgeRefusal): number | null {
  if (e.retryAfterSeconds !== null) return e.retryAfterSeconds;
  const m = /^\s*(\d+)\s*$/.exec(e.message) ?? /(\d+)\s*s(?:ec|econds?)?\b/.exec(e.message);
  return m ? Number(m[1]) : null;
}

/** The operator-facing sentence for a failed admin call (`secrets` are masked out of it). */
export function describeFailure(e: unknown, secrets: readonly string[] = []): string {
  if (!(e instanceof BridgeRefusal)) {
    return scrub(e instanceof Error && e.message ? e.message : 'The request failed.', secrets);
  }
  const msg = e.message.trim();
  let text: string;
  switch (e.code) {
    case 'rateLimited': {
      const s = retrySeconds(e);
      text = s === null ? 'Too many attempts. Wait a moment and try again.' : `Too many attempts. Wait ${s} second${s === 1 ? '' : 's'} and try again.`;
      break;
    }
    case 'locked':
      text = LOCKED_MESSAGE;
      break;
    case 'passwordRequired':
      text = 'This action needs your password again. Try it once more.';
      break;
    case 'invalid':
      text = msg ? `The server refused the request as invalid: ${msg}` : 'The server refused the request as invalid.';
      break;
    case 'unavailable':
      text = msg
        ? `Administration is unavailable right now (${msg}). It runs on the server PC while the server is up.`
        : 'Administration is unavailable right now. It runs on the server PC while the server is up.';
      break;
    case 'forbidden':
      // Relay Web: the gateway's "not on the web" sentence says where the action can be done.
      text = (e as { gatewayCode?: unknown }).gatewayCode === 'not_on_the_web' && msg ? msg : 'This window may not use administration.';
      break;
    default:
      text = msg || 'The server refused this.';
  }
  return scrub(text, secrets);
}
