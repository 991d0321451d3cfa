// Administration screen, the accounts and their devices: each account with its display name,
// username, kind, effective role, active/inactive and password Configured / Not configured (never
// more), its paired devices grouped under it (label, hostname, state, "…" + fingerprint suffix),
// and the row actions the signed-in role may use on this surface (`can`: a paired laptop offers
// everything but Set/Reset password and Pair device, which are server-PC only); then the authority
// controls (Publisher assignment, ownership transfer for the Owner). Hiding is for clarity only:
// the server enforces.
import { useState } from 'react';
import type { AdminAccount, AdminDevice, AdminSnapshot } from '../../transport/desktop';
import type { AdminAction } from './adminActions';
import type { FormDialog } from './adminController';
import { accountById, accountName, devicesOf, kindLabel, roleLabel, type Abilities } from './adminModel';

interface Actions {
  busy: boolean;
  can: Abilities;
  request(action: AdminAction): void;
  open(dialog: FormDialog): void;
}

function DeviceRow({ device, canManage, busy, request }: { device: AdminDevice; canManage: boolean } & Pick<Actions, 'busy' | 'request'>) {
  return (
    <tr className="admin-device-row" data-testid="admin-device">
      <td>{device.label || 'Unnamed device'}</td>
      <td colSpan={2}>{device.hostname || '—'}</td>
      <td>{device.state}</td>
      <td colSpan={2}><code title="End of the device's key fingerprint">…{device.fingerprintSuffix}</code></td>
      <td>
        {canManage && device.state === 'active' && (
          <button type="button" className="button button-ghost small" data-testid="admin-revoke" disabled={busy}
            aria-label={`Revoke ${device.label || 'device'} (${device.hostname})`} onClick={() => request({ kind: 'revoke', deviceId: device.id })}>
            Revoke…
          </button>
        )}
      </td>
    </tr>
  );
}

function AccountRows({ account, devices, isOwner, actions }: { account: AdminAccount; devices: AdminDevice[]; isOwner: boolean; actions: Actions }) {
  const { busy, can, request, open } = actions;
  const manage = can.manageAccount(account);
  const pairable = can.manageDevices(account);
  const passwords = manage && can.setPasswords;
  const configured = account.password === 'Configured';
  const who = account.username;
  return (
    <tbody data-testid="admin-account" data-account={account.id}>
      <tr>
        <th scope="row">
          {account.displayName || account.username}
          <div className="muted small">{account.username}</div>
        </th>
        <td>{kindLabel(account.kind)}</td>
        <td data-testid="admin-role">{roleLabel(account.role)}</td>
        <td>{account.active ? 'Active' : 'Inactive'}</td>
        <td data-testid="admin-password">{configured ? 'Configured' : 'Not configured'}</td>
        <td>{devices.length === 0 ? 'No devices' : `${devices.length} device${devices.length === 1 ? '' : 's'}`}</td>
        <td>
          <div className="admin-actions">
            {manage && (
              <>
                <button type="button" className="button button-ghost small" data-testid="admin-rename-open" disabled={busy}
                  aria-label={`Rename ${who}`} onClick={() => open({ kind: 'rename', accountId: account.id })}>Rename</button>
                {passwords && (configured ? (
                  <button type="button" className="button button-ghost small" data-testid="admin-reset-password" disabled={busy}
                    aria-label={`Reset the password of ${who}`} onClick={() => request({ kind: 'resetPassword', accountId: account.id })}>Reset password…</button>
                ) : (
                  <button type="button" className="button button-ghost small" data-testid="admin-set-password-open" disabled={busy}
                    aria-label={`Set the password of ${who}`} onClick={() => open({ kind: 'setPassword', accountId: account.id, error: null })}>Set password</button>
                ))}
                {account.active ? (
                  !isOwner && (
                    <button type="button" className="button button-ghost small" data-testid="admin-deactivate" disabled={busy}
                      aria-label={`Deactivate ${who}`} onClick={() => request({ kind: 'setActive', accountId: account.id, active: false })}>Deactivate…</button>
                  )
                ) : (
                  <button type="button" className="button button-ghost small" data-testid="admin-activate" disabled={busy}
                    aria-label={`Activate ${who}`} onClick={() => request({ kind: 'setActive', accountId: account.id, active: true })}>Activate</button>
                )}
              </>
            )}
            {pairable && can.pairDevices && (
              <button type="button" className="button button-ghost small" data-testid="admin-pair-open" disabled={busy}
                aria-label={`Pair a device to ${who}`} onClick={() => open({ kind: 'pair', accountId: account.id })}>Pair device</button>
            )}
          </div>
        </td>
      </tr>
      {devices.map((d) => <DeviceRow key={d.id} device={d} canManage={pairable} busy={busy} request={request} />)}
    </tbody>
  );
}

function Authority({ snapshot, actions }: { snapshot: AdminSnapshot; actions: Actions }) {
  const { busy, can, request } = actions;
  const { ownerAccountId, publisherAccountId } = snapshot.authority;
  const publishers = snapshot.accounts.filter((a) => a.kind === 'publisher' && a.active);
  const successors = snapshot.accounts.filter((a) => a.kind === 'administrator' && a.active && a.id !== ownerAccountId);
  const [publisher, setPublisher] = useState(publisherAccountId ?? '');
  const [successor, setSuccessor] = useState('');
  const chosenPublisher = publisher === '' ? null : publisher;
  return (
    <div data-testid="admin-authority">
      <h3>Authority</h3>
      <dl className="kv">
        <dt>Owner</dt><dd data-testid="admin-owner">{accountName(accountById(snapshot, ownerAccountId))}</dd>
        <dt>Publisher</dt><dd data-testid="admin-publisher">{publisherAccountId ? accountName(accountById(snapshot, publisherAccountId)) : 'None'}</dd>
      </dl>
      {can.assignPublisher && (
        <form className="row-wrap" onSubmit={(e) => { e.preventDefault(); request({ kind: 'assignPublisher', accountId: chosenPublisher }); }}>
          <label className="field">
            <span className="field-label">Publisher</span>
            <select className="input" data-testid="admin-publisher-select" value={publisher} onChange={(e) => setPublisher(e.target.value)}>
              <option value="">None</option>
              {publishers.map((a) => <option key={a.id} value={a.id}>{accountName(a)}</option>)}
            </select>
          </label>
          <button type="submit" className="button button-ghost" data-testid="admin-publisher-assign" disabled={busy || chosenPublisher === publisherAccountId}>
            Assign Publisher…
          </button>
        </form>
      )}
      {can.transferOwnership && (
        <form className="row-wrap" onSubmit={(e) => { e.preventDefault(); if (successor) request({ kind: 'transfer', accountId: successor }); }}>
          <label className="field">
            <span className="field-label">New Owner</span>
            <select className="input" data-testid="admin-owner-select" value={successor} onChange={(e) => setSuccessor(e.target.value)}>
              <option value="">Choose an Administrator</option>
              {successors.map((a) => <option key={a.id} value={a.id}>{accountName(a)}</option>)}
            </select>
          </label>
          <button type="submit" className="button button-danger" data-testid="admin-owner-transfer" disabled={busy || !successor}>
            Transfer ownership…
          </button>
        </form>
      )}
    </div>
  );
}

export function AccountsTable({ snapshot, actions }: { snapshot: AdminSnapshot; actions: Actions }) {
  return (
    <>
      <div className="row-wrap">
        <h3>Accounts</h3>
        {actions.can.createKinds.length > 0 && (
          <button type="button" className="button button-ghost small" data-testid="admin-create-open" disabled={actions.busy} onClick={() => actions.open({ kind: 'create' })}>
            New account…
          </button>
        )}
      </div>
      <div className="table-scroll">
        <table className="table" data-testid="admin-accounts">
          <caption className="visually-hidden">Administration and Publisher accounts, each with its paired devices below it</caption>
          <thead>
            <tr>
              <th scope="col">Account</th><th scope="col">Kind</th><th scope="col">Role</th><th scope="col">Status</th>
              <th scope="col">Password</th><th scope="col">Devices</th><th scope="col"><span className="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          {snapshot.accounts.map((a) => (
            <AccountRows key={a.id} account={a} devices={devicesOf(snapshot, a.id)} isOwner={a.id === snapshot.authority.ownerAccountId} actions={actions} />
          ))}
        </table>
      </div>
      <Authority key={`${snapshot.authority.revision}`} snapshot={snapshot} actions={actions} />
    </>
  );
}
