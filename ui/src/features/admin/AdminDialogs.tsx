// Administration screen, its dialogs: create account, rename, set/reset password (an uncontrolled
// new-password input bound to the controller's slot), pair a device (label, then the code shown
// once, large, with a live "Expires in 9:59" countdown), the fresh-password prompt on
// `passwordRequired`, and the confirmation of a destructive action (the app's Confirm dialog).
import { useState, type FormEvent } from 'react';
import { Confirm, Modal } from '../../components/Modal';
import { useNow } from '../../lib/useNow';
import type { AdminAccount } from '../../transport/desktop';
import type { AdminController, AdminDialog, AdminState } from './adminController';
import { accountById, accountName, formatCountdown, kindLabel } from './adminModel';

type Ctl = Pick<AdminController, 'fields' | 'request' | 'confirm' | 'cancelDialog' | 'submitNewPassword' | 'submitFreshPassword'>;

const submit = (fn: () => void) => (e: FormEvent) => {
  e.preventDefault();
  fn();
};

function Buttons({ busy, label, onCancel, danger }: { busy: boolean; label: string; onCancel(): void; danger?: boolean }) {
  return (
    <div className="row-end">
      <button type="button" className="button button-ghost" onClick={onCancel}>Cancel</button>
      <button type="submit" className={danger ? 'button button-danger' : 'button button-primary'} data-testid="admin-dialog-submit" disabled={busy}>
        {label}
      </button>
    </div>
  );
}

function CreateAccount({ kinds, busy, ctl, serverPc }: { kinds: AdminAccount['kind'][]; busy: boolean; ctl: Ctl; serverPc: boolean }) {
  const [username, setUsername] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [kind, setKind] = useState<AdminAccount['kind']>(kinds[0] ?? 'publisher');
  return (
    <Modal title="New account" onClose={ctl.cancelDialog} testId="admin-create">
      <form onSubmit={submit(() => ctl.request({ kind: 'create', username: username.trim(), displayName: displayName.trim(), accountKind: kind }))}>
        <label className="field">
          <span className="field-label">Username</span>
          <input className="input" data-testid="admin-create-username" autoComplete="off" required value={username} onChange={(e) => setUsername(e.target.value)} />
        </label>
        <label className="field">
          <span className="field-label">Display name</span>
          <input className="input" data-testid="admin-create-display" autoComplete="off" value={displayName} onChange={(e) => setDisplayName(e.target.value)} />
        </label>
        <label className="field">
          <span className="field-label">Kind</span>
          <select className="input" data-testid="admin-create-kind" value={kind} onChange={(e) => setKind(e.target.value as AdminAccount['kind'])}>
            {kinds.map((k) => <option key={k} value={k}>{kindLabel(k)}</option>)}
          </select>
        </label>
        <p className="muted small">
          The account starts inactive without a password: set its password{serverPc ? '' : ' on the Relay server PC'}, then activate it.
        </p>
        <Buttons busy={busy || !username.trim()} label="Create" onCancel={ctl.cancelDialog} />
      </form>
    </Modal>
  );
}

function Rename({ account, busy, ctl }: { account: AdminAccount; busy: boolean; ctl: Ctl }) {
  const [displayName, setDisplayName] = useState(account.displayName);
  return (
    <Modal title={`Rename ${account.username}`} onClose={ctl.cancelDialog} testId="admin-rename">
      <form onSubmit={submit(() => ctl.request({ kind: 'rename', accountId: account.id, displayName: displayName.trim() }))}>
        <label className="field">
          <span className="field-label">Display name</span>
          <input className="input" data-testid="admin-rename-display" autoComplete="off" value={displayName} onChange={(e) => setDisplayName(e.target.value)} />
        </label>
        <Buttons busy={busy || !displayName.trim()} label="Rename" onCancel={ctl.cancelDialog} />
      </form>
    </Modal>
  );
}

function SetPassword({ account, error, busy, ctl }: { account: AdminAccount | undefined; error: string | null; busy: boolean; ctl: Ctl }) {
  const reset = account?.password === 'Configured';
  return (
    <Modal title={reset ? 'Reset password' : 'Set password'} onClose={ctl.cancelDialog} testId="admin-set-password">
      <form onSubmit={submit(() => void ctl.submitNewPassword())}>
        <p>New password for <strong>{accountName(account)}</strong>. Its paired devices are revoked and pair again with a new code.</p>
        <label className="field">
          <span className="field-label">New password</span>
          <input className="input" data-testid="admin-new-password" type="password" autoComplete="new-password"
            ref={ctl.fields.newPassword.ref} aria-invalid={error ? true : undefined} aria-describedby={error ? 'admin-new-password-error' : undefined} />
        </label>
        {error && <p id="admin-new-password-error" className="error-text" role="alert">{error}</p>}
        <Buttons busy={busy} label={reset ? 'Reset password' : 'Set password'} onCancel={ctl.cancelDialog} danger={reset} />
      </form>
    </Modal>
  );
}

function Pair({ account, busy, ctl }: { account: AdminAccount; busy: boolean; ctl: Ctl }) {
  const [label, setLabel] = useState('');
  return (
    <Modal title={`Pair a device to ${account.username}`} onClose={ctl.cancelDialog} testId="admin-pair">
      <form onSubmit={submit(() => ctl.request({ kind: 'pair', accountId: account.id, label: label.trim() }))}>
        <label className="field">
          <span className="field-label">Device label</span>
          <input className="input" data-testid="admin-pair-label" autoComplete="off" placeholder="e.g. NOC laptop 3" value={label} onChange={(e) => setLabel(e.target.value)} />
        </label>
        <Buttons busy={busy || !label.trim()} label="Create pairing code" onCancel={ctl.cancelDialog} />
      </form>
    </Modal>
  );
}

/** The new pairing code, large, with its live countdown; the code is gone once it expires. */
export function PairingCode({ code, label, account, expiresAtMs, onClose }: { code: string; label: string; account: AdminAccount | undefined; expiresAtMs: number; onClose(): void }) {
  const now = useNow(1_000);
  const left = formatCountdown(expiresAtMs - now);
  return (
    <Modal title="Pairing code" onClose={onClose} role="alertdialog" testId="admin-pairing-code">
      <p>Enter this code on <strong>{label}</strong> to pair it to {accountName(account)}.</p>
      {left ? (
        <>
          <p className="pairing-code" data-testid="admin-pairing-value" aria-label={`Pairing code ${code.split('').join(' ')}`}>
            <code>{code}</code>
          </p>
          <p role="status" data-testid="admin-pairing-expiry">Expires in {left}</p>
        </>
      ) : (
        <p className="error-text" role="alert" data-testid="admin-pairing-expiry">This code has expired. Create a new one.</p>
      )}
      <p className="muted small">The code is shown once: it cannot be shown again after this dialog closes.</p>
      <div className="row-end">
        <button type="button" className="button button-primary" onClick={onClose}>Done</button>
      </div>
    </Modal>
  );
}

function FreshPassword({ username, error, busy, ctl }: { username: string; error: string | null; busy: boolean; ctl: Ctl }) {
  return (
    <Modal title="Confirm your password" onClose={ctl.cancelDialog} testId="admin-fresh-password-dialog">
      <form onSubmit={submit(() => void ctl.submitFreshPassword())}>
        <p>This action needs your password again ({username}).</p>
        <label className="field">
          <span className="field-label">Your password</span>
          <input className="input" data-testid="admin-fresh-password" type="password" autoComplete="off"
            ref={ctl.fields.fresh.ref} aria-invalid={error ? true : undefined} aria-describedby={error ? 'admin-fresh-password-error' : undefined} />
        </label>
        {error && <p id="admin-fresh-password-error" className="error-text" role="alert">{error}</p>}
        <Buttons busy={busy} label="Confirm" onCancel={ctl.cancelDialog} />
      </form>
    </Modal>
  );
}

/** The dialog `state.dialog` names, or nothing (`serverPc` false: passwords are set on the server PC). */
export function AdminDialogView({ state, ctl, createKinds, serverPc = true }: { state: AdminState; ctl: Ctl; createKinds: AdminAccount['kind'][]; serverPc?: boolean }) {
  const d: AdminDialog | null = state.dialog;
  if (!d) return null;
  const account = 'accountId' in d ? accountById(state.snapshot, d.accountId) : undefined;
  switch (d.kind) {
    case 'create':
      return <CreateAccount kinds={createKinds} busy={state.busy} ctl={ctl} serverPc={serverPc} />;
    case 'rename':
      return account ? <Rename account={account} busy={state.busy} ctl={ctl} /> : null;
    case 'setPassword':
      return <SetPassword account={account} error={d.error} busy={state.busy} ctl={ctl} />;
    case 'pair':
      return account ? <Pair account={account} busy={state.busy} ctl={ctl} /> : null;
    case 'pairingCode':
      return <PairingCode code={d.code} label={d.label} account={account} expiresAtMs={d.expiresAtMs} onClose={ctl.cancelDialog} />;
    case 'freshPassword':
      return <FreshPassword username={state.session?.username ?? ''} error={d.error} busy={state.busy} ctl={ctl} />;
    case 'confirm':
      return <Confirm title={d.confirmation.title} message={d.confirmation.message} confirmLabel={d.confirmation.confirmLabel} onConfirm={ctl.confirm} onCancel={ctl.cancelDialog} />;
  }
}
