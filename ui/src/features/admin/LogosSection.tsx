// Administration screen, the Logos section (Owner and Administrator sessions): for the company
// and the footer logo a preview of the current one (or "No logo set"), "Choose image…" (a hidden
// file input) and "Remove" (after the app's Confirm dialog); the section's notices
// (role="status") and errors (role="alert"). Every button is disabled while a request runs.
import { useRef } from 'react';
import { Confirm } from '../../components/Modal';
import type { LogoKind } from '../../transport/desktop';
import type { LogoPreview, LogosController, LogosState } from './logosController';
import { LOGO_ACCEPT, LOGO_KINDS, LOGO_LABELS, LOGO_NOTE } from './logosModel';

export type LogosPanelController = Pick<LogosController, 'choose' | 'askRemove' | 'confirmRemove' | 'cancelRemove'>;

function Preview({ kind, preview }: { kind: LogoKind; preview: LogoPreview }) {
  if (preview.url) {
    return <img className="logo-preview-img" src={preview.url} alt={`Current ${LOGO_LABELS[kind].toLowerCase()}`} data-testid="admin-logo-preview" />;
  }
  if (preview.status === 'failed') return <span className="error-text small">{preview.error}</span>;
  return <span className="muted small">{preview.status === 'loading' ? 'Loading…' : 'No logo set'}</span>;
}

function LogoRow({ kind, preview, busy, ctl }: { kind: LogoKind; preview: LogoPreview; busy: boolean; ctl: LogosPanelController }) {
  const input = useRef<HTMLInputElement>(null);
  const label = LOGO_LABELS[kind];
  return (
    <div className="logo-row" data-testid={`admin-logo-${kind}`}>
      <span className="field-label">{label}</span>
      <div className="logo-preview">
        <Preview kind={kind} preview={preview} />
      </div>
      <div className="admin-actions">
        <input ref={input} type="file" accept={LOGO_ACCEPT} hidden tabIndex={-1} aria-hidden="true" data-testid={`admin-logo-file-${kind}`}
          onChange={(e) => {
            const file = e.target.files?.[0];
            e.target.value = '';
            if (file) void ctl.choose(kind, file);
          }} />
        <button type="button" className="button button-ghost small" data-testid="admin-logo-choose" disabled={busy}
          aria-label={`Choose an image for the ${label.toLowerCase()}`} onClick={() => input.current?.click()}>
          Choose image…
        </button>
        <button type="button" className="button button-ghost small" data-testid="admin-logo-remove" disabled={busy || preview.status === 'none'}
          aria-label={`Remove the ${label.toLowerCase()}`} onClick={() => ctl.askRemove(kind)}>
          Remove
        </button>
      </div>
    </div>
  );
}

export function LogosSection({ state, busy, ctl }: { state: LogosState; busy: boolean; ctl: LogosPanelController }) {
  const { message, removing } = state;
  const working = busy || state.reading;
  return (
    <section data-testid="admin-logos" aria-busy={working || undefined}>
      <h3>Logos</h3>
      <p className="muted small">{LOGO_NOTE}</p>
      <div className="logo-rows">
        {LOGO_KINDS.map((kind) => <LogoRow key={kind} kind={kind} preview={state.previews[kind]} busy={working} ctl={ctl} />)}
      </div>
      {message && (
        <p className={message.error ? 'error-text' : 'muted'} role={message.error ? 'alert' : 'status'} data-testid="admin-logos-message">
          {message.text}
        </p>
      )}
      {removing && (
        <Confirm title={`Remove the ${LOGO_LABELS[removing].toLowerCase()}?`}
          message={`The ${LOGO_LABELS[removing].toLowerCase()} is no longer shown to anyone until a new one is chosen.`}
          confirmLabel="Remove" onConfirm={() => void ctl.confirmRemove()} onCancel={ctl.cancelRemove} />
      )}
    </section>
  );
}
