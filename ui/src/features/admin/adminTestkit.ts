// Test fakes for the administration screen: a fake desktop shell whose `invoke` answers the five
// admin bridge commands (the dynatrace.* commands with a revision-checked configuration among
// them), the two logo commands (and connection_info) like the server-mode shell,
// records every call, and can refuse the next matching call with a bridge error (its logos are
// read back through `fetchLogo`, as over HTTP); a snapshot fixture that carries extra
// secret-looking fields the renderer must drop; a fake paired-laptop session (surface 'laptop')
// over that shell; and a fake password input for SecretSlot.
import { vi } from 'vitest';
import { DesktopBridge, type AdminRole, type LogoKind } from '../../transport/desktop';
import type { ProtectedSession } from '../../transport/protectedSession';
import type { SecretInput } from './secretSlot';

export const OWNER_ID = 'acc_owner';
export const ADMIN_ID = 'acc_admin';
export const PUB_ID = 'acc_pub';
export const PUB2_ID = 'acc_pub2';
export const REVISION = 7;
/** The Dynatrace configuration's revision in the fake shell. */
export const DYNATRACE_REVISION = 3;
/** The signed-in user's password in the fakes. */
export const PASSWORD = 'Correct-Horse-42';
/** Secret-looking values the fake server puts in its snapshot; none may reach the screen. */
export const LEAKS = ['$argon2id$v=19$SECRET-HASH', 'TOTP-SECRET-BASE32', 'FULL-FINGERPRINT-SECRET'];
/** 14:05 local time today. */
export const LOCK_AT = new Date(2026, 11, 3, 14, 5, 0).getTime();

export function snapshotFixture(): Record<string, unknown> {
  return {
    accounts: [
      { id: OWNER_ID, username: 'olivia', displayName: 'Olivia Owner', kind: 'administrator', active: true, role: 'owner', password: 'Configured', passwordHash: LEAKS[0] },
      { id: ADMIN_ID, username: 'adam', displayName: 'Adam Admin', kind: 'administrator', active: true, role: 'administrator', password: 'Configured', totpSecret: LEAKS[1] },
      { id: PUB_ID, username: 'pia', displayName: 'Pia Publisher', kind: 'publisher', active: true, role: 'publisher', password: 'Configured' },
      { id: PUB2_ID, username: 'pete', displayName: 'Pete Spare', kind: 'publisher', active: false, role: null, password: LEAKS[0] },
    ],
    devices: [
      { id: 'dev_1', accountId: PUB_ID, label: 'NOC laptop 3', hostname: 'noc-lt-03', state: 'active', fingerprintSuffix: 'ab12cd', fingerprint: LEAKS[2] },
      { id: 'dev_2', accountId: PUB_ID, label: 'Old tablet', hostname: 'tab-01', state: 'revoked', fingerprintSuffix: 'ff0011' },
      { id: 'dev_3', accountId: OWNER_ID, label: 'Owner desk', hostname: 'srv-desk', state: 'active', fingerprintSuffix: '9e9e9e' },
    ],
    authority: { ownerAccountId: OWNER_ID, publisherAccountId: PUB_ID, revision: REVISION },
  };
}

function decodeBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export interface BridgeError {
  code: string;
  message: unknown;
}

/** A fake server-mode shell for the admin commands. */
export function fakeAdminShell(opts: { role?: AdminRole; signedIn?: boolean; available?: boolean } = {}) {
  const role = opts.role ?? 'owner';
  const username = role === 'owner' ? 'olivia' : role === 'administrator' ? 'adam' : 'pia';
  const state = {
    available: opts.available ?? true,
    session: (opts.signedIn ?? true) ? { username, role, lockAtMs: LOCK_AT } : (null as null | { username: string; role: AdminRole; lockAtMs: number }),
    /** `recovery_status`'s answer, and the build `recovery_rollback` last asked for. */
    recovery: {
      managed: true,
      overview: {
        current: { build: 'v1-0-0-aaaaaaaa', version: '1.0.0', commit: 'a'.repeat(40), promotedAtMs: 1_700_000_200_000, rollback: 'current' },
        predecessors: [
          { build: 'v0-9-0-bbbbbbbb', version: '0.9.0', commit: 'b'.repeat(40), promotedAtMs: 1_700_000_100_000, rollback: 'available' },
          { build: 'v0-8-0-cccccccc', version: '0.8.0', commit: 'c'.repeat(40), promotedAtMs: 1_700_000_000_000, rollback: 'data_epoch_mismatch' },
        ],
        candidatePending: false,
        rollbackRequested: false,
        quarantinedReleases: 0,
      },
    } as Record<string, unknown>,
    rolledBackTo: null as string | null,
    repaired: null as string | null,
    /** The stored logos' bytes. */
    logos: {} as Partial<Record<LogoKind, Uint8Array>>,
    /** The Dynatrace configuration (the token itself is only ever "configured" in answers). */
    dynatrace: {
      revision: DYNATRACE_REVISION,
      environmentUrl: 'https://abc12345.apps.dynatrace.com' as string | null,
      profiles: ['NOC'] as string[],
      matcher: null as string | null,
      workflowId: null as string | null,
      token: null as string | null,
    },
  };
  const dynatraceStatus = () => {
    const d = state.dynatrace;
    const scope = d.matcher ? { kind: 'custom-dql', matcher: d.matcher } : d.profiles.length ? { kind: 'alerting-profile', profiles: d.profiles } : { kind: 'all' };
    return {
      revision: d.revision,
      environmentUrl: d.environmentUrl,
      token: d.token ? 'configured' : 'not_configured',
      tokenStorage: d.token ? 'os_store' : null,
      scope,
      workflowId: d.workflowId,
      // Never sent by the real server; here to prove the renderer drops it.
      tokenValue: d.token,
    };
  };
  const dynatraceChange = (expected: unknown, apply: () => void) => {
    if (expected !== state.dynatrace.revision) throw { code: 'rejected', message: 'the record changed meanwhile; reload and retry' };
    apply();
    state.dynatrace.revision++;
    return dynatraceStatus();
  };
  const refusals: { match: string; error: BridgeError }[] = [];
  const status = () => ({ available: state.available, session: state.available ? state.session : null });
  const invoke = vi.fn(async (cmd: string, args?: Record<string, unknown>): Promise<unknown> => {
    const key = cmd === 'admin_command' ? String(args?.command) : cmd;
    const i = refusals.findIndex((r) => r.match === key || r.match === cmd);
    if (i >= 0) throw refusals.splice(i, 1)[0].error;
    switch (cmd) {
      case 'connection_info':
        return { mode: 'server', serverUrl: 'http://127.0.0.1:8090', passphraseAvailable: true, secretStorage: 'owner-only-file' };
      case 'admin_status':
        return status();
      case 'admin_sign_in':
        if (args?.username !== username || args?.password !== PASSWORD) throw { code: 'rejected', message: 'Wrong username or password.' };
        state.session = { username, role, lockAtMs: LOCK_AT };
        return status();
      case 'admin_confirm_password':
        if (!state.session) throw { code: 'locked', message: 'locked' };
        if (args?.password !== PASSWORD) throw { code: 'rejected', message: 'Wrong password.' };
        return status();
      case 'admin_lock':
        state.session = null;
        return status();
      case 'admin_set_logo':
        if (!state.session) throw { code: 'locked', message: 'locked' };
        state.logos[args?.kind as LogoKind] = decodeBase64(String(args?.imageBase64));
        return { width: 400, height: 100, bytes: 5120 };
      case 'admin_remove_logo':
        if (!state.session) throw { code: 'locked', message: 'locked' };
        delete state.logos[args?.kind as LogoKind];
        return null;
      case 'recovery_status':
        return state.recovery;
      case 'recovery_rollback':
        if (!state.session) throw { code: 'locked', message: 'locked' };
        state.rolledBackTo = String(args?.build);
        return { build: args?.build, version: '0.9.0' };
      case 'recovery_repair':
        if (!state.session) throw { code: 'locked', message: 'locked' };
        state.repaired = String(args?.build);
        return { build: args?.build, version: '0.9.0', repaired: true };
      case 'admin_command':
        if (!state.session) throw { code: 'locked', message: 'locked' };
        switch (args?.command) {
          case 'admin.snapshot':
            return snapshotFixture();
          case 'accounts.create':
            return { accountId: 'acc_new', active: false, password: 'Not configured' };
          case 'accounts.setPassword':
            return { passwordSet: true, devicesRevoked: 1 };
          case 'devices.revoke':
            return { revoked: true };
          case 'pairing.start':
            return { code: 'K7QX2M9P', expiresAtMs: Date.now() + 600_000 };
          case 'audit.verify':
            return { ok: true, entries: 42 };
          case 'dynatrace.status':
            return dynatraceStatus();
          case 'dynatrace.configure': {
            const p = (args?.payload ?? {}) as Record<string, unknown>;
            return dynatraceChange(args?.expectedRevision, () => {
              const url = String(p.environmentUrl ?? '') || null;
              if (url !== state.dynatrace.environmentUrl) state.dynatrace.token = null;
              Object.assign(state.dynatrace, {
                environmentUrl: url,
                profiles: (p.alertingProfiles as string[]) ?? [],
                matcher: (p.matcher as string | undefined) ?? null,
                workflowId: (p.workflowId as string | undefined) ?? null,
              });
            });
          }
          case 'dynatrace.setToken':
            return dynatraceChange(args?.expectedRevision, () => {
              state.dynatrace.token = String((args?.payload as { token?: unknown })?.token);
            });
          case 'dynatrace.removeToken':
            return dynatraceChange(args?.expectedRevision, () => {
              state.dynatrace.token = null;
            });
          case 'dynatrace.testConnection':
            return { ok: true, message: 'Dynatrace answered: 12 problems in the last 2 hours.' };
          default:
            return {};
        }
      default:
        throw { code: 'forbidden', message: 'unexpected command' };
    }
  });
  const w = { __TAURI__: { core: { invoke } } };
  /** GET /api/relay/branding/logo/{kind}: the stored bytes as a PNG Blob, or null. */
  const fetchLogo = vi.fn(async (kind: LogoKind): Promise<Blob | null> => {
    const bytes = state.logos[kind];
    return bytes ? new Blob([bytes as BlobPart], { type: 'image/png' }) : null;
  });
  return {
    state,
    invoke,
    window: w,
    bridge: new DesktopBridge(w.__TAURI__),
    fetchLogo,
    /** Refuses the next call of `match` (a bridge command or an admin command name). */
    refuseNext(match: string, error: BridgeError) {
      refusals.push({ match, error });
    },
    /** The admin_command calls' arguments, in order. */
    commands(): Record<string, unknown>[] {
      return invoke.mock.calls.filter(([c]) => c === 'admin_command').map(([, a]) => a as Record<string, unknown>);
    },
    /** Every call's command name, admin commands as their command. */
    names(): string[] {
      return invoke.mock.calls.map(([c, a]) => (c === 'admin_command' ? String(a?.command) : c));
    },
  };
}

/** A paired laptop's protected session (surface 'laptop') answering like the fake shell's bridge,
 * through the ProtectedSession interface only (independent of the laptop transport); its
 * `adminCommand` is a spy, so tests see each signed command as the controllers send it. */
export function laptopSession(bridge: DesktopBridge) {
  const session = {
    surface: 'laptop' as const,
    adminStatus: () => bridge.adminStatus(),
    adminSignIn: (username: string, password: string) => bridge.adminSignIn(username, password),
    adminConfirmPassword: (password: string) => bridge.adminConfirmPassword(password),
    adminLock: () => bridge.adminLock(),
    adminCommand: vi.fn((...args: Parameters<ProtectedSession['adminCommand']>) => bridge.adminCommand(...args)),
    adminSnapshot: () => bridge.adminSnapshot(),
    adminWikiUpload: vi.fn((...args: Parameters<ProtectedSession['adminWikiUpload']>) => bridge.adminWikiUpload(...args)),
  };
  return session satisfies ProtectedSession;
}

/** A password input as SecretSlot sees it. */
export function fakeInput(value = ''): SecretInput {
  return { value };
}

/** Object URLs as the previews use them: numbered fakes, recording which are still live. */
export function fakeObjectUrls() {
  let n = 0;
  const live = new Set<string>();
  return {
    live,
    createObjectURL: vi.fn((_blob: Blob) => {
      const url = `blob:relay/${++n}`;
      live.add(url);
      return url;
    }),
    revokeObjectURL: vi.fn((url: string) => void live.delete(url)),
  };
}
