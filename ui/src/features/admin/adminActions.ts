// Administration screen, the actions as data: for each operator action the `admin_command` it
// sends (command, payload, expected authority revision), the confirmation a destructive one asks
// for first, and the notice shown when it succeeds. Setting a password is not here: its secret
// never becomes data (the controller reads it from the field when the form is submitted).
import { plural } from '../../lib/text';
import type { AdminAccount, AdminCommandName, AdminSnapshot } from '../../transport/desktop';
import { accountById, accountName, devicesOf } from './adminModel';

export type AdminAction =
  | { kind: 'create'; username: string; displayName: string; accountKind: AdminAccount['kind'] }
  | { kind: 'rename'; accountId: string; displayName: string }
  | { kind: 'setActive'; accountId: string; active: boolean }
  /** Confirmed first; then the set-password form opens for the account. */
  | { kind: 'resetPassword'; accountId: string }
  | { kind: 'revoke'; deviceId: string }
  | { kind: 'pair'; accountId: string; label: string }
  | { kind: 'assignPublisher'; accountId: string | null }
  | { kind: 'transfer'; accountId: string }
  | { kind: 'auditVerify' };

export interface AdminCommand {
  command: AdminCommandName;
  payload: Record<string, unknown>;
  expectedRevision: number | null;
}

/** The command an action sends; authority commands carry the snapshot's authority revision. */
export function commandFor(action: Exclude<AdminAction, { kind: 'resetPassword' }>, snapshot: AdminSnapshot | null): AdminCommand {
  const revision = snapshot?.authority.revision ?? null;
  switch (action.kind) {
    case 'create':
      return { command: 'accounts.create', payload: { username: action.username, displayName: action.displayName, kind: action.accountKind }, expectedRevision: null };
    case 'rename':
      return { command: 'accounts.rename', payload: { accountId: action.accountId, displayName: action.displayName }, expectedRevision: null };
    case 'setActive':
      return { command: 'accounts.setActive', payload: { accountId: action.accountId, active: action.active }, expectedRevision: null };
    case 'revoke':
      return { command: 'devices.revoke', payload: { deviceId: action.deviceId }, expectedRevision: null };
    case 'pair':
      return { command: 'pairing.start', payload: { accountId: action.accountId, label: action.label }, expectedRevision: null };
    case 'assignPublisher':
      return { command: 'publisher.assign', payload: { accountId: action.accountId }, expectedRevision: revision };
    case 'transfer':
      return { command: 'ownership.transfer', payload: { accountId: action.accountId }, expectedRevision: revision };
    case 'auditVerify':
      return { command: 'audit.verify', payload: {}, expectedRevision: null };
  }
}

export interface Confirmation {
  title: string;
  message: string;
  confirmLabel: string;
}

/** The confirmation a destructive action asks for first; null for the others. */
export function confirmationFor(action: AdminAction, snapshot: AdminSnapshot | null): Confirmation | null {
  switch (action.kind) {
    case 'setActive': {
      if (action.active) return null;
      const name = accountName(accountById(snapshot, action.accountId));
      return { title: 'Deactivate this account?', message: `${name} can no longer sign in or publish until it is activated again.`, confirmLabel: 'Deactivate' };
    }
    case 'resetPassword': {
      const a = accountById(snapshot, action.accountId);
      const devices = snapshot && a ? devicesOf(snapshot, a.id).filter((d) => d.state === 'active').length : 0;
      return {
        title: 'Reset this password?',
        message: `The current password of ${accountName(a)} stops working, and its ${devices} active paired device${devices === 1 ? '' : 's'} ${devices === 1 ? 'is' : 'are'} revoked. You choose the new password next.`,
        confirmLabel: 'Continue',
      };
    }
    case 'revoke': {
      const d = snapshot?.devices.find((x) => x.id === action.deviceId);
      const owner = accountName(accountById(snapshot, d?.accountId));
      return { title: 'Revoke this device?', message: `${d?.label || 'The device'} (${d?.hostname || 'unknown host'}) of ${owner} can no longer connect. Pairing it again needs a new code.`, confirmLabel: 'Revoke' };
    }
    case 'assignPublisher': {
      const current = accountById(snapshot, snapshot?.authority.publisherAccountId);
      const next = accountById(snapshot, action.accountId);
      const message = action.accountId === null
        ? `${accountName(current)} stops being the Publisher, and no account publishes until one is assigned.`
        : current
          ? `The Publisher role moves from ${accountName(current)} to ${accountName(next)}.`
          : `${accountName(next)} becomes the Publisher.`;
      return { title: action.accountId === null ? 'Remove the Publisher?' : 'Assign the Publisher?', message, confirmLabel: action.accountId === null ? 'Remove' : 'Assign' };
    }
    case 'transfer': {
      const next = accountById(snapshot, action.accountId);
      return {
        title: 'Transfer ownership?',
        message: `${accountName(next)} becomes the Owner of this server. Only the Owner can manage Administrator accounts or transfer ownership again.`,
        confirmLabel: 'Transfer ownership',
      };
    }
    default:
      return null;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The notice for an action that succeeded with `result` (the command's JSON result); away from
 * the server PC (`serverPc` false) a new account's password is set there. */
export function noticeFor(action: AdminAction, result: unknown, snapshot: AdminSnapshot | null, serverPc = true): { text: string; error: boolean } {
  const r = isObject(result) ? result : {};
  const name = (id: string | null) => accountName(accountById(snapshot, id));
  switch (action.kind) {
    case 'create':
      return {
        text: `Account ${action.username} created (inactive, no password yet). Set its password${serverPc ? '' : ' on the Relay server PC'}, then activate it.`,
        error: false,
      };
    case 'rename':
      return { text: `Renamed to ${action.displayName}.`, error: false };
    case 'setActive':
      return { text: `${name(action.accountId)} is ${action.active ? 'active' : 'inactive'} now.`, error: false };
    case 'revoke':
      return { text: r.revoked === false ? 'The device was already revoked.' : 'Device revoked.', error: false };
    case 'pair':
      return { text: `Pairing code created for ${name(action.accountId)}.`, error: false };
    case 'assignPublisher':
      return { text: action.accountId === null ? 'No account is the Publisher now.' : `${name(action.accountId)} is the Publisher now.`, error: false };
    case 'transfer':
      return { text: `${name(action.accountId)} is the Owner now.`, error: false };
    case 'auditVerify': {
      const entries = typeof r.entries === 'number' ? r.entries : 0;
      return r.ok === true
        ? { text: `Audit log: ${plural(entries, 'entry', 'entries')}, chain verified.`, error: false }
        : { text: `Audit log: ${plural(entries, 'entry', 'entries')}, chain verification FAILED. Keep the data directory as it is and report it.`, error: true };
    }
    case 'resetPassword':
      return { text: '', error: false };
  }
}

/** The notice after a password was set: how many devices the reset revoked. */
export function passwordNotice(account: AdminAccount | undefined, result: unknown): string {
  const revoked = isObject(result) && typeof result.devicesRevoked === 'number' ? result.devicesRevoked : 0;
  const who = accountName(account);
  return revoked > 0
    ? `Password set for ${who}; ${revoked} paired device${revoked === 1 ? '' : 's'} revoked.`
    : `Password set for ${who}.`;
}
