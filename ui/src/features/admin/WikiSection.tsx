// Administration screen, the Wiki section (Owner, Administrator and Publisher sessions): "Upload
// PDFs…" (the desktop shell's own file chooser — no path reaches this page; on a paired laptop
// through its session's upload; on Relay Web the browser's, through WebProtectedSession), the
// upload queue with
// a labelled progress bar and state per file (a failed one with its reason), the review form of
// each ready upload (title from the file name, category, type) and its Publish button, Cancel
// batch, then the library and categories (`WikiLibrarySection`), the section's notices
// (role="status") and errors (role="alert"). Every button is disabled while a request runs. Every
// surface (server PC, paired laptop, Relay Web) uploads through its ProtectedSession.
import type { FormEvent } from 'react';
import type { WikiController, WikiState } from './wikiController';
import { WikiLibrarySection } from './WikiLibrary';
import { DOCUMENT_TYPES, formatSize, reasonText, stateLabel, type DocumentType, type UploadItem, type WikiLibrary } from './wikiModel';

export type WikiPanelController = Pick<
  WikiController,
  | 'reload' | 'upload' | 'edit' | 'publish' | 'cancelBatch' | 'openEdit' | 'editDialog' | 'closeDialog' | 'saveEdit' | 'trash' | 'restore'
  | 'askDelete' | 'confirmDelete' | 'createCategory' | 'openRenameCategory' | 'saveRenameCategory' | 'moveCategory'
  | 'askDeleteCategory' | 'confirmDeleteCategory'
>;

/** Shown instead of the uploads on a paired laptop. */
/** The progress bar: determinate while chunks are counted, indeterminate while the server works. */
function UploadProgress({ u }: { u: UploadItem }) {
  const label = `${u.fileName}: ${stateLabel(u.state)}`;
  if (u.state === 'queued') return <progress aria-label={label} value={0} max={1} data-testid="admin-wiki-progress" />;
  if (u.state === 'uploading' || u.state === 'assembling' || u.state === 'extracting') {
    const counted = u.state === 'uploading' && u.storedChunks > 0 && u.chunkCount > 0;
    return counted
      ? <progress aria-label={label} value={u.storedChunks} max={u.chunkCount} data-testid="admin-wiki-progress" />
      : <progress aria-label={label} data-testid="admin-wiki-progress" />;
  }
  return <progress aria-label={label} value={1} max={1} data-testid="admin-wiki-progress" />;
}

function Review({ u, library, busy, ctl }: { u: UploadItem; library: WikiLibrary; busy: boolean; ctl: WikiPanelController }) {
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void ctl.publish(u.uploadId);
  };
  if (u.replacing) {
    return (
      <form className="row-wrap" onSubmit={onSubmit} data-testid="admin-wiki-review">
        <span className="muted small">Replaces the PDF of “{library.documents.find((d) => d.id === u.replacing)?.title ?? 'a document'}”.</span>
        <button type="submit" className="button button-primary small" disabled={busy} data-testid="admin-wiki-publish">Replace PDF</button>
      </form>
    );
  }
  return (
    <form className="row-wrap" onSubmit={onSubmit} data-testid="admin-wiki-review">
      <label className="field">
        <span className="field-label">Title</span>
        <input className="input" value={u.review.title} maxLength={240} data-testid="admin-wiki-review-title"
          onChange={(e) => ctl.edit(u.uploadId, { title: e.target.value })} />
      </label>
      <label className="field">
        <span className="field-label">Category</span>
        <select className="input" value={u.review.categoryId} data-testid="admin-wiki-review-category"
          onChange={(e) => ctl.edit(u.uploadId, { categoryId: e.target.value })}>
          {library.categories.map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
        </select>
      </label>
      <label className="field">
        <span className="field-label">Type</span>
        <select className="input" value={u.review.documentType} data-testid="admin-wiki-review-type"
          onChange={(e) => ctl.edit(u.uploadId, { documentType: e.target.value as DocumentType })}>
          {DOCUMENT_TYPES.map((t) => <option key={t.value} value={t.value}>{t.label}</option>)}
        </select>
      </label>
      <button type="submit" className="button button-primary small" disabled={busy || !u.review.title.trim()} data-testid="admin-wiki-publish">
        Publish
      </button>
    </form>
  );
}

function Queue({ state, busy, ctl }: { state: WikiState; busy: boolean; ctl: WikiPanelController }) {
  const { queue, library } = state;
  if (!queue.length) return <p className="muted small" data-testid="admin-wiki-queue-empty">No uploads in progress.</p>;
  return (
    <ul className="admin-wiki-queue" data-testid="admin-wiki-queue">
      {queue.map((u) => (
        <li key={u.uploadId} data-testid="admin-wiki-upload" data-upload={u.uploadId} data-state={u.state}>
          <div className="row-wrap">
            <strong data-testid="admin-wiki-upload-name">{u.fileName}</strong>
            <span className="muted small">{formatSize(u.byteSize)}</span>
            <UploadProgress u={u} />
            <span data-testid="admin-wiki-upload-state" className={u.state === 'failed' ? 'error-text' : 'muted'}>
              {stateLabel(u.state)}
              {u.state === 'failed' && `: ${reasonText(u.error)}`}
            </span>
          </div>
          {u.state === 'ready' && library && <Review u={u} library={library} busy={busy} ctl={ctl} />}
        </li>
      ))}
    </ul>
  );
}

export function WikiSection({ state, busy, ctl }: { state: WikiState; busy: boolean; ctl: WikiPanelController }) {
  const { phase, library, message, loadError, batchId } = state;
  return (
    <section data-testid="admin-wiki" aria-busy={busy || undefined} aria-labelledby="admin-wiki-title">
      <h3 id="admin-wiki-title">Wiki</h3>
      <p className="muted small">Publish SOP manuals and quick guides (PDF, up to 50 MB and 1,000 pages) for every operator's Knowledge tab.</p>
      {phase === 'loading' && <p className="muted small" role="status">Reading the Wiki library…</p>}
      {loadError && (
        <p className="error-text" role="alert" data-testid="admin-wiki-load-error">
          {loadError}{' '}
          <button type="button" className="button button-ghost small" disabled={busy} onClick={() => void ctl.reload()}>Reload</button>
        </p>
      )}
      {message && (
        <p className={message.error ? 'error-text' : 'muted'} role={message.error ? 'alert' : 'status'} data-testid="admin-wiki-message">
          {message.text}
        </p>
      )}
      {library && (
        <>
          <h4>Uploads</h4>
          <div className="admin-actions">
            <button type="button" className="button button-primary small" disabled={busy} data-testid="admin-wiki-upload-button" onClick={() => void ctl.upload(null)}>
              Upload PDFs…
            </button>
            {batchId && (
              <button type="button" className="button button-ghost small" disabled={busy} data-testid="admin-wiki-cancel-batch" onClick={() => void ctl.cancelBatch()}>
                Cancel batch
              </button>
            )}
          </div>
          <Queue state={state} busy={busy} ctl={ctl} />
          <WikiLibrarySection state={state} busy={busy} ctl={ctl} />
        </>
      )}
    </section>
  );
}
