// A paired laptop's protected session (client-mode desktop): the answers of the desktop bridge's
// laptop_* commands (laptop_status, laptop_pair, laptop_sign_in, laptop_confirm_password,
// laptop_lock, laptop_forget), read field by field: an unknown pairing state reads as 'unpaired',
// an unknown role as the least privileged one, and nothing beyond the listed fields is kept (the
// device key, tokens and proofs stay in the desktop shell; only the fingerprint's suffix shows).
// The commands themselves are invoked in desktop.ts (the registry tests read the names there).
import type { AdminRole, AdminSession } from './desktopAdmin';

/** Where this laptop's pairing stands; 'storeUnavailable': no OS secret store for the key. */
export type LaptopPairing = 'unpaired' | 'paired' | 'revoked' | 'storeUnavailable';

/** The paired device: its account, its label and the end of its key's fingerprint. */
export interface LaptopDevice {
  username: string;
  label: string;
  fingerprintSuffix: string;
  role: AdminRole;
}

/** What every laptop_* command but laptop_command answers; `available` is false outside client mode. */
export interface LaptopStatus {
  available: boolean;
  pairing: LaptopPairing;
  device: LaptopDevice | null;
  session: AdminSession | null;
}

/** The message of the `locked` refusal that means the server revoked this laptop's pairing. */
export const REVOKED_MESSAGE = "This laptop's pairing was revoked. Pair it again.";

const PAIRINGS: readonly string[] = ['unpaired', 'paired', 'revoked', 'storeUnavailable'];
const ROLES: readonly string[] = ['owner', 'administrator', 'publisher'];
const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const role = (v: unknown): AdminRole => (ROLES.includes(str(v)) ? (v as AdminRole) : 'publisher');

/** A laptop status with every field checked. */
export function laptopStatus(raw: unknown): LaptopStatus {
  const r = isObject(raw) ? raw : {};
  const available = r.available === true;
  const pairing: LaptopPairing = PAIRINGS.includes(str(r.pairing)) ? (r.pairing as LaptopPairing) : 'unpaired';
  const d = isObject(r.device) ? r.device : null;
  const device: LaptopDevice | null = d && typeof d.username === 'string' && d.username !== ''
    ? { username: d.username, label: str(d.label), fingerprintSuffix: str(d.fingerprintSuffix), role: role(d.role) }
    : null;
  const s = isObject(r.session) ? r.session : null;
  const session: AdminSession | null = s && typeof s.username === 'string' && s.username !== ''
    ? { username: s.username, role: role(s.role), lockAtMs: typeof s.lockAtMs === 'number' && Number.isFinite(s.lockAtMs) ? s.lockAtMs : 0 }
    : null;
  const paired = available && pairing === 'paired';
  return { available, pairing, device: available ? device : null, session: paired ? session : null };
}

/** Whether a refusal's message says the pairing was revoked (the `locked` refusal of a revoked laptop). */
export function saysRevoked(message: string): boolean {
  return /pairing was revoked/i.test(message);
}
