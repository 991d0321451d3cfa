// Settings → Administration on a client-mode desktop (the 'laptop' surface): this laptop's pairing
// section, then — once paired — the protected sign-in as the paired account and its role's sections:
// the Wiki with upload for all three roles; for an Owner or Administrator the accounts table with
// its actions (no Set/Reset password, no Pair device: server PC only), Verify audit log and the
// Dynatrace section, every command signed by the laptop session. Pairing states: 'storeUnavailable' (no
// OS secret store: it cannot pair), 'unpaired' (the "Pair this laptop" form), 'revoked' (the
// notice, the form again and "Forget pairing"), 'paired' ("Paired as …", "Forget pairing" after a
// confirmation, then the protected screen). The pairing code lives in its field only until the
// form is submitted; passwords go through the admin controller's SecretSlots as everywhere else.
import { useState, type FormEvent } from 'react';
import { useController } from './useController';
import { LaptopProtectedSession, type LaptopBridge } from '../../transport/laptopProtected';
import { AdministrationView } from './AdministrationPanel';
import { AdminController } from './adminController';
import { roleLabel } from './adminModel';
import { DynatraceController, showsDynatrace } from './dynatraceController';
import { DEFAULT_LAPTOP_LABEL, LaptopController, type LaptopState } from './laptopController';
import { WikiController, showsWiki } from './wikiController';

export type LaptopPanelController = Pick<LaptopController, 'pair' | 'askForget' | 'cancelForget' | 'forget'>;

/** Shown when the OS secret store is missing. */
export const STORE_UNAVAILABLE_TEXT =
  "This PC's secret store (keyring) is not available, so this laptop cannot be paired: its device key would have nowhere safe to live. Set up the OS keyring, then reopen Settings.";

function PairForm({ busy, ctl }: { busy: boolean; ctl: LaptopPanelController }) {
  const [username, setUsername] = useState('');
  const [code, setCode] = useState('');
  const [label, setLabel] = useState(DEFAULT_LAPTOP_LABEL);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const typed = code;
    setCode('');
    void ctl.pair(username, typed, label);
  };
  return (
    <form data-testid="laptop-pair" aria-label="Pair this laptop" onSubmit={onSubmit}>
      <h4>Pair this laptop</h4>
      <p className="muted small">
        On the Relay server PC, an Owner or Administrator opens Administration and creates a pairing code for your account. Enter it here.
      </p>
      <div className="row-wrap">
        <label className="field">
          <span className="field-label">Username</span>
          <input className="input" data-testid="laptop-pair-username" autoComplete="off" autoCapitalize="off" spellCheck={false}
            value={username} onChange={(e) => setUsername(e.target.value)} />
        </label>
        <label className="field">
          <span className="field-label">Pairing code</span>
          <input className="input" data-testid="laptop-pair-code" autoComplete="off" autoCapitalize="characters" spellCheck={false}
            placeholder="XXXX-XXXX" maxLength={11} value={code} onChange={(e) => setCode(e.target.value)} />
        </label>
        <label className="field">
          <span className="field-label">Label</span>
          <input className="input" data-testid="laptop-pair-label" maxLength={80} value={label} onChange={(e) => setLabel(e.target.value)} />
        </label>
        <button type="submit" className="button button-primary" data-testid="laptop-pair-submit" disabled={busy}>
          Pair this laptop
        </button>
      </div>
    </form>
  );
}

function Forget({ state, ctl }: { state: LaptopState; ctl: LaptopPanelController }) {
  if (!state.confirmingForget) {
    return (
      <button type="button" className="button button-ghost small" data-testid="laptop-forget" disabled={state.busy} onClick={() => ctl.askForget()}>
        Forget pairing
      </button>
    );
  }
  return (
    <div className="row-wrap" role="alertdialog" aria-label="Forget pairing" data-testid="laptop-forget-confirmation">
      <span>Forget this laptop's pairing? Its device key is deleted here; pairing again needs a new code from the server PC.</span>
      <button type="button" className="button button-danger small" data-testid="laptop-forget-confirm" disabled={state.busy} onClick={() => void ctl.forget()}>
        Forget pairing
      </button>
      <button type="button" className="button button-ghost small" data-testid="laptop-forget-cancel" onClick={() => ctl.cancelForget()}>
        Cancel
      </button>
    </div>
  );
}

/** The pairing section for one state (pure rendering). */
export function LaptopPairingView({ state, ctl }: { state: LaptopState; ctl: LaptopPanelController }) {
  const { status, busy, message, loadError } = state;
  if (!status) {
    return (
      <section data-testid="laptop-pairing" data-pairing="loading">
        {loadError ? <p className="error-text" role="alert">{loadError}</p> : <p className="muted" role="status">Checking this laptop's pairing…</p>}
      </section>
    );
  }
  const { pairing, device } = status;
  return (
    <section data-testid="laptop-pairing" data-pairing={pairing} aria-busy={busy || undefined} aria-labelledby="laptop-pairing-title">
      <h3 id="laptop-pairing-title">This laptop</h3>
      {pairing === 'storeUnavailable' && <p className="error-text" data-testid="laptop-store-unavailable">{STORE_UNAVAILABLE_TEXT}</p>}
      {pairing === 'revoked' && <p className="error-text" data-testid="laptop-revoked">This laptop's pairing was revoked.</p>}
      {pairing === 'paired' && device && (
        <div className="row-wrap">
          <span data-testid="laptop-paired-as">
            Paired as <strong>{device.username}</strong> ({roleLabel(device.role)}) · key …{device.fingerprintSuffix}
          </span>
          <Forget state={state} ctl={ctl} />
        </div>
      )}
      {(pairing === 'unpaired' || pairing === 'revoked') && <PairForm busy={busy} ctl={ctl} />}
      {pairing === 'revoked' && <Forget state={state} ctl={ctl} />}
      {message && (
        <p className={message.error ? 'error-text' : 'muted'} role={message.error ? 'alert' : 'status'} data-testid="laptop-message">
          {message.text}
        </p>
      )}
    </section>
  );
}

/** The client-mode desktop's screen over the bridge's laptop_* commands (nothing outside client mode). */
export function LaptopAdministration({ bridge }: { bridge: LaptopBridge }) {
  const [ctl] = useState(() => new LaptopController(new LaptopProtectedSession(bridge)));
  const state = useController(ctl);
  const { status } = state;
  if (status && !status.available) return null;
  const device = status?.pairing === 'paired' ? status.device : null;
  if (device) {
    return <PairedAdministration key={`${device.username}/${device.fingerprintSuffix}`} laptop={ctl} state={state} username={device.username} />;
  }
  return (
    <div className="panel card" data-testid="administration" data-surface="laptop">
      <h2>Administration</h2>
      <LaptopPairingView state={state} ctl={ctl} />
    </div>
  );
}

/** Paired: the protected screen over the laptop session, with the pairing section on top. */
function PairedAdministration({ laptop, state: laptopState, username }: { laptop: LaptopController; state: LaptopState; username: string }) {
  const [ctl] = useState(() => new AdminController(laptop.session));
  const [dynatraceCtl] = useState(() => new DynatraceController(laptop.session, ctl));
  const [wikiCtl] = useState(() => new WikiController(laptop.session, ctl));
  const state = useController(ctl);
  const dynatraceState = useController(dynatraceCtl, showsDynatrace(state));
  const wikiState = useController(wikiCtl, showsWiki(state));
  return (
    <AdministrationView state={state} ctl={ctl} dynatrace={{ state: dynatraceState, ctl: dynatraceCtl }} wiki={{ state: wikiState, ctl: wikiCtl }} surface="laptop"
      pairedUsername={username} pairing={<LaptopPairingView state={laptopState} ctl={laptop} />} />
  );
}
