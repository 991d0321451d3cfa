// Administration screen on Relay Web (surface 'web'), the accounts and devices for an Owner or
// Administrator, read only: each account with its display name, username, kind, role, active or
// not and password Configured / Not configured, its paired devices under it (label, hostname,
// state, "…" + fingerprint suffix), and who holds Owner and Publisher. There is no action of any
// kind here — accounts, passwords, pairing and devices are managed on the Relay server PC (and the
// gateway refuses those commands from a browser anyway).
import type { AdminSnapshot } from '../../transport/desktop';
import { accountById, accountName, devicesOf, kindLabel, roleLabel } from './adminModel';

export function ReadOnlyAccounts({ snapshot }: { snapshot: AdminSnapshot }) {
  const { ownerAccountId, publisherAccountId } = snapshot.authority;
  return (
    <section data-testid="admin-accounts-readonly" aria-labelledby="admin-accounts-readonly-title">
      <h3 id="admin-accounts-readonly-title">Accounts</h3>
      <div className="table-scroll">
        <table className="table" data-testid="admin-accounts" aria-label="Accounts and devices (read only)">
          <caption className="visually-hidden">Administration and Publisher accounts, each with its paired devices below it (read only)</caption>
          <thead>
            <tr>
              <th scope="col">Account</th><th scope="col">Kind</th><th scope="col">Role</th><th scope="col">Status</th>
              <th scope="col">Password</th><th scope="col">Devices</th>
            </tr>
          </thead>
          {snapshot.accounts.map((a) => {
            const devices = devicesOf(snapshot, a.id);
            return (
              <tbody key={a.id} data-testid="admin-account" data-account={a.id}>
                <tr>
                  <th scope="row">
                    {a.displayName || a.username}
                    <div className="muted small">{a.username}</div>
                  </th>
                  <td>{kindLabel(a.kind)}</td>
                  <td data-testid="admin-role">{roleLabel(a.role)}</td>
                  <td>{a.active ? 'Active' : 'Inactive'}</td>
                  <td data-testid="admin-password">{a.password === 'Configured' ? 'Configured' : 'Not configured'}</td>
                  <td>{devices.length === 0 ? 'No devices' : `${devices.length} device${devices.length === 1 ? '' : 's'}`}</td>
                </tr>
                {devices.map((d) => (
                  <tr key={d.id} className="admin-device-row" data-testid="admin-device">
                    <td>{d.label || 'Unnamed device'}</td>
                    <td colSpan={2}>{d.hostname || '—'}</td>
                    <td>{d.state}</td>
                    <td colSpan={2}><code title="End of the device's key fingerprint">…{d.fingerprintSuffix}</code></td>
                  </tr>
                ))}
              </tbody>
            );
          })}
        </table>
      </div>
      <dl className="kv" data-testid="admin-authority">
        <dt>Owner</dt><dd data-testid="admin-owner">{accountName(accountById(snapshot, ownerAccountId))}</dd>
        <dt>Publisher</dt><dd data-testid="admin-publisher">{publisherAccountId ? accountName(accountById(snapshot, publisherAccountId)) : 'None'}</dd>
      </dl>
    </section>
  );
}
