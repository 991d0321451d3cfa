// Administration screen, the Wiki section's library: the documents table (title, category, type,
// pages, active/trashed, search state) with Edit (title, category, type), Replace PDF…, Trash,
// Restore and Delete permanently (after a confirmation); the categories list with Add, Rename,
// Move up / Move down and Delete (its documents move to a chosen category; the built-in
// Uncategorized cannot be deleted); and their dialogs.
import { useState, type FormEvent } from 'react';
import { Confirm, Modal } from '../../components/Modal';
import { plural } from '../../lib/text';
import type { WikiDialog, WikiState } from './wikiController';
import type { WikiPanelController } from './WikiSection';
import { DOCUMENT_TYPES, UNCATEGORIZED_KEY, categoryName, typeLabel, type DocumentType, type WikiLibrary } from './wikiModel';

const submit = (fn: () => void) => (e: FormEvent) => {
  e.preventDefault();
  fn();
};

function DialogButtons({ busy, label, onCancel }: { busy: boolean; label: string; onCancel(): void }) {
  return (
    <div className="row-end">
      <button type="button" className="button button-ghost" onClick={onCancel}>Cancel</button>
      <button type="submit" className="button button-primary" data-testid="admin-wiki-dialog-submit" disabled={busy}>{label}</button>
    </div>
  );
}

function Documents({ library, busy, ctl }: { library: WikiLibrary; busy: boolean; ctl: WikiPanelController }) {
  if (!library.documents.length) return <p className="muted small" data-testid="admin-wiki-library-empty">No documents published yet.</p>;
  return (
    <div className="table-scroll">
      <table className="table" data-testid="admin-wiki-library">
        <caption className="visually-hidden">Wiki documents</caption>
        <thead>
          <tr>
            <th scope="col">Title</th><th scope="col">Category</th><th scope="col">Type</th><th scope="col">Pages</th>
            <th scope="col">State</th><th scope="col">Search</th><th scope="col"><span className="visually-hidden">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          {library.documents.map((d) => (
            <tr key={d.id} data-testid="admin-wiki-document" data-document={d.id} data-state={d.lifecycleState}>
              <td data-testid="admin-wiki-document-title">{d.title}</td>
              <td>{categoryName(library, d.categoryId)}</td>
              <td>{typeLabel(d.documentType)}</td>
              <td>{d.pageCount}</td>
              <td data-testid="admin-wiki-document-state">{d.lifecycleState === 'trashed' ? 'Trashed' : 'Active'}</td>
              <td>{d.searchIndexState}</td>
              <td className="admin-actions">
                {d.lifecycleState === 'active' ? (
                  <>
                    <button type="button" className="button button-ghost small" disabled={busy} data-testid="admin-wiki-edit" onClick={() => ctl.openEdit(d.id)}>Edit</button>
                    <button type="button" className="button button-ghost small" disabled={busy} data-testid="admin-wiki-replace" onClick={() => void ctl.upload(d.id)}>Replace PDF…</button>
                    <button type="button" className="button button-ghost small" disabled={busy} data-testid="admin-wiki-trash" onClick={() => void ctl.trash(d.id)}>Trash</button>
                  </>
                ) : (
                  <>
                    <button type="button" className="button button-ghost small" disabled={busy} data-testid="admin-wiki-restore" onClick={() => void ctl.restore(d.id)}>Restore</button>
                    <button type="button" className="button button-ghost small" disabled={busy} data-testid="admin-wiki-delete" onClick={() => ctl.askDelete(d.id)}>Delete permanently</button>
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Categories({ library, busy, ctl }: { library: WikiLibrary; busy: boolean; ctl: WikiPanelController }) {
  const [name, setName] = useState('');
  const cats = library.categories;
  const count = (id: string) => library.documents.filter((d) => d.categoryId === id).length;
  return (
    <>
      <ul className="admin-wiki-categories" data-testid="admin-wiki-categories">
        {cats.map((c, i) => (
          <li key={c.id} className="row-wrap" data-testid="admin-wiki-category" data-category={c.id}>
            <span data-testid="admin-wiki-category-name">{c.name}</span>
            <span className="muted small">{plural(count(c.id), 'document')}</span>
            <button type="button" className="button button-ghost small" disabled={busy || i === 0} aria-label={`Move ${c.name} up`}
              data-testid="admin-wiki-category-up" onClick={() => void ctl.moveCategory(c.id, -1)}>↑</button>
            <button type="button" className="button button-ghost small" disabled={busy || i === cats.length - 1} aria-label={`Move ${c.name} down`}
              data-testid="admin-wiki-category-down" onClick={() => void ctl.moveCategory(c.id, 1)}>↓</button>
            <button type="button" className="button button-ghost small" disabled={busy} data-testid="admin-wiki-category-rename"
              onClick={() => ctl.openRenameCategory(c.id)}>Rename</button>
            {c.systemKey !== UNCATEGORIZED_KEY && (
              <button type="button" className="button button-ghost small" disabled={busy} data-testid="admin-wiki-category-delete"
                onClick={() => ctl.askDeleteCategory(c.id)}>Delete</button>
            )}
          </li>
        ))}
      </ul>
      <form className="row-wrap" data-testid="admin-wiki-category-form"
        onSubmit={submit(() => void ctl.createCategory(name).then(() => setName('')))}>
        <label className="field">
          <span className="field-label">New category</span>
          <input className="input" value={name} maxLength={120} data-testid="admin-wiki-category-new" onChange={(e) => setName(e.target.value)} />
        </label>
        <button type="submit" className="button button-primary small" disabled={busy || !name.trim()} data-testid="admin-wiki-category-add">Add category</button>
      </form>
    </>
  );
}

function Dialog({ dialog, library, busy, ctl }: { dialog: WikiDialog; library: WikiLibrary; busy: boolean; ctl: WikiPanelController }) {
  switch (dialog.kind) {
    case 'editDocument':
      return (
        <Modal title="Edit document" onClose={ctl.closeDialog} testId="admin-wiki-edit-dialog">
          <form onSubmit={submit(() => void ctl.saveEdit())}>
            <label className="field">
              <span className="field-label">Title</span>
              <input className="input" value={dialog.title} maxLength={240} data-testid="admin-wiki-edit-title"
                onChange={(e) => ctl.editDialog({ title: e.target.value })} />
            </label>
            <label className="field">
              <span className="field-label">Category</span>
              <select className="input" value={dialog.categoryId} data-testid="admin-wiki-edit-category"
                onChange={(e) => ctl.editDialog({ categoryId: e.target.value })}>
                {library.categories.map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
              </select>
            </label>
            <label className="field">
              <span className="field-label">Type</span>
              <select className="input" value={dialog.documentType} data-testid="admin-wiki-edit-type"
                onChange={(e) => ctl.editDialog({ documentType: e.target.value as DocumentType })}>
                {DOCUMENT_TYPES.map((t) => <option key={t.value} value={t.value}>{t.label}</option>)}
              </select>
            </label>
            <DialogButtons busy={busy || !dialog.title.trim()} label="Save" onCancel={ctl.closeDialog} />
          </form>
        </Modal>
      );
    case 'renameCategory':
      return (
        <Modal title="Rename category" onClose={ctl.closeDialog} testId="admin-wiki-rename-dialog">
          <form onSubmit={submit(() => void ctl.saveRenameCategory())}>
            <label className="field">
              <span className="field-label">Name</span>
              <input className="input" value={dialog.name} maxLength={120} data-testid="admin-wiki-rename-name"
                onChange={(e) => ctl.editDialog({ name: e.target.value })} />
            </label>
            <DialogButtons busy={busy || !dialog.name.trim()} label="Rename" onCancel={ctl.closeDialog} />
          </form>
        </Modal>
      );
    case 'deleteCategory': {
      const others = library.categories.filter((c) => c.id !== dialog.categoryId);
      return (
        <Modal title={`Delete “${categoryName(library, dialog.categoryId)}”?`} onClose={ctl.closeDialog} testId="admin-wiki-category-delete-dialog">
          <form onSubmit={submit(() => void ctl.confirmDeleteCategory())}>
            <label className="field">
              <span className="field-label">Move its documents to</span>
              <select className="input" value={dialog.reassignTo} data-testid="admin-wiki-category-reassign"
                onChange={(e) => ctl.editDialog({ reassignTo: e.target.value })}>
                {others.map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
              </select>
            </label>
            <DialogButtons busy={busy || !dialog.reassignTo} label="Delete category" onCancel={ctl.closeDialog} />
          </form>
        </Modal>
      );
    }
    case 'deleteDocument': {
      const title = library.documents.find((d) => d.id === dialog.documentId)?.title ?? 'this document';
      return (
        <Confirm title={`Delete “${title}” permanently?`} message="Its PDF and search entries are removed for good. This cannot be undone."
          confirmLabel="Delete permanently" onConfirm={() => void ctl.confirmDelete()} onCancel={ctl.closeDialog} />
      );
    }
  }
}

export function WikiLibrarySection({ state, busy, ctl }: { state: WikiState; busy: boolean; ctl: WikiPanelController }) {
  const { library, dialog } = state;
  if (!library) return null;
  return (
    <>
      <h4>Library</h4>
      <Documents library={library} busy={busy} ctl={ctl} />
      <h4>Categories</h4>
      <Categories library={library} busy={busy} ctl={ctl} />
      {dialog && <Dialog dialog={dialog} library={library} busy={busy} ctl={ctl} />}
    </>
  );
}
