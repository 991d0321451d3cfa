// Administration screen, the Wiki section's flow (no React): the library (`wiki.library`) and the
// upload batch in progress (`wiki.upload.status`) read when the section shows; "Upload PDFs…" and
// "Replace PDF…" run `admin_wiki_upload` (the shell's file chooser; each file's progress event
// updates the queue); a ready upload's review is published (`wiki.publish`, or `wiki.replace`
// for a replacement); the batch can be cancelled; documents are edited (`wiki.retitle`), trashed,
// restored and deleted (after a confirmation; the session's fresh-password prompt when the server
// asks for it); categories are added, renamed, moved up or down (`wiki.category.reorder` with the
// whole list) and deleted with their documents moved to another one. Every command carries the
// record's current revision where the payload has one; a stale revision reloads the library and
// says so. The calls run through the Administration session (`AdminController.runPrivileged`):
// its busy flag, password prompt and retry, and the sign-in form on `locked`.
import { ControllerStore } from './controllerStore';
import type { AdminCommandName, WikiUploadEvent } from '../../transport/desktop';
import type { ProtectedSession } from '../../transport/protectedSession';
import type { AdminController, AdminState, Notice } from './adminController';
import {
  UNCATEGORIZED_KEY,
  applyUploadEvent,
  editReview,
  isStale,
  movedOrder,
  publishPayload,
  queueFromStatus,
  reviewProblem,
  wikiFailure,
  wikiLibrary,
  type DocumentType,
  type Review,
  type UploadItem,
  type WikiDocument,
  type WikiLibrary,
} from './wikiModel';

export type WikiBridge = Pick<ProtectedSession, 'adminCommand' | 'adminWikiUpload'>;
export type WikiHost = Pick<AdminController, 'runPrivileged' | 'getState'>;

/** The Wiki section's open dialog (one at a time). */
export type WikiDialog =
  | { kind: 'editDocument'; documentId: string; title: string; categoryId: string; documentType: DocumentType }
  | { kind: 'deleteDocument'; documentId: string }
  | { kind: 'renameCategory'; categoryId: string; name: string }
  | { kind: 'deleteCategory'; categoryId: string; reassignTo: string };

export type WikiDialogPatch = Partial<{ title: string; categoryId: string; documentType: DocumentType; name: string; reassignTo: string }>;

export interface WikiState {
  phase: 'loading' | 'ready' | 'failed';
  library: WikiLibrary | null;
  loadError: string | null;
  /** The caller's upload batch in progress, if any. */
  batchId: string | null;
  queue: UploadItem[];
  message: Notice | null;
  dialog: WikiDialog | null;
}

const INITIAL: WikiState = { phase: 'loading', library: null, loadError: null, batchId: null, queue: [], message: null, dialog: null };

/** Owner, Administrator and Publisher may publish to the Wiki. */
export function showsWiki(admin: Pick<AdminState, 'phase' | 'session'>): boolean {
  return admin.phase === 'session' && !!admin.session && ['owner', 'administrator', 'publisher'].includes(admin.session.role);
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export class WikiController extends ControllerStore<WikiState> {
  private reads = 0;

  constructor(
    private readonly bridge: WikiBridge,
    private readonly host: WikiHost,
  ) {
    super(INITIAL);
    // The section passes these as event handlers.
    this.reload = this.reload.bind(this);
    this.upload = this.upload.bind(this);
    this.edit = this.edit.bind(this);
    this.publish = this.publish.bind(this);
    this.cancelBatch = this.cancelBatch.bind(this);
    this.openEdit = this.openEdit.bind(this);
    this.editDialog = this.editDialog.bind(this);
    this.closeDialog = this.closeDialog.bind(this);
    this.saveEdit = this.saveEdit.bind(this);
    this.trash = this.trash.bind(this);
    this.restore = this.restore.bind(this);
    this.askDelete = this.askDelete.bind(this);
    this.confirmDelete = this.confirmDelete.bind(this);
    this.createCategory = this.createCategory.bind(this);
    this.openRenameCategory = this.openRenameCategory.bind(this);
    this.saveRenameCategory = this.saveRenameCategory.bind(this);
    this.moveCategory = this.moveCategory.bind(this);
    this.askDeleteCategory = this.askDeleteCategory.bind(this);
    this.confirmDeleteCategory = this.confirmDeleteCategory.bind(this);
  }

  start(): Promise<void> {
    this.stopped = false;
    return this.reload();
  }

  stop(): void {
    this.reads++;
    this.stopped = true;
    this.state = INITIAL;
  }

  /** Reads the library and the batch in progress (reviews being typed are kept). */
  async reload(): Promise<void> {
    const read = ++this.reads;
    try {
      const [rawLibrary, rawStatus] = await Promise.all([
        this.bridge.adminCommand('wiki.library', {}, null),
        this.bridge.adminCommand('wiki.upload.status', {}, null),
      ]);
      if (read !== this.reads || this.stopped) return;
      const library = wikiLibrary(rawLibrary);
      const { batchId, queue } = queueFromStatus(rawStatus, this.state.queue, library);
      this.set({ phase: 'ready', library, batchId, queue, loadError: null });
    } catch (e) {
      if (read !== this.reads || this.stopped) return;
      this.set({ phase: this.state.library ? 'ready' : 'failed', loadError: `The Wiki library could not be read: ${wikiFailure(e)}` });
    }
  }

  private busy(): boolean {
    return this.stopped || this.host.getState().busy || this.state.library === null;
  }

  private failed(e: unknown): void {
    this.set({ message: { text: wikiFailure(e), error: true } });
    if (isStale(e)) void this.reload();
  }

  private document(id: string): WikiDocument | undefined {
    return this.state.library?.documents.find((d) => d.id === id);
  }

  /** Runs one `wiki.*` command in the session; on success says `notice(result)` and reloads. */
  private run(command: AdminCommandName, payload: Record<string, unknown>, notice: (result: unknown) => string, after?: (result: unknown) => void): Promise<void> {
    this.set({ message: null });
    return this.host.runPrivileged(
      () => this.bridge.adminCommand(command, payload, null),
      async (result) => {
        after?.(result);
        this.set({ message: { text: notice(result), error: false } });
        await this.reload();
      },
      (e) => this.failed(e),
    );
  }

  /** A progress event of the running upload. */
  private onEvent(event: WikiUploadEvent, replacing: string | null): void {
    this.set({ queue: applyUploadEvent(this.state.queue, event, this.state.library, replacing) });
  }

  /** "Upload PDFs…" (or "Replace PDF…" of one document): the shell's chooser, then the uploads. */
  async upload(replacing: string | null = null): Promise<void> {
    if (this.busy()) return;
    this.set({ message: null, dialog: null });
    await this.host.runPrivileged(
      () => this.bridge.adminWikiUpload(replacing, (e) => this.onEvent(e, replacing)),
      async (summary) => {
        for (const f of summary.files) this.onEvent(f, replacing);
        if (summary.batchId === null) {
          this.set({ message: { text: 'No file was chosen.', error: false } });
          return;
        }
        const ready = summary.files.filter((f) => f.state === 'ready').length;
        const failed = summary.files.filter((f) => f.state === 'failed').length;
        const text = `${plural(summary.files.length, 'file')} uploaded: ${ready} ready for review${failed ? `, ${failed} failed` : ''}.`;
        this.set({ message: { text, error: failed > 0 }, batchId: summary.batchId });
        await this.reload();
      },
      (e) => this.failed(e),
    );
  }

  /** Edits a ready upload's review (title, category, type). */
  edit(uploadId: string, patch: Partial<Review>): void {
    this.set({ queue: editReview(this.state.queue, uploadId, patch) });
  }

  /** Publishes a ready upload as reviewed (or makes it the new PDF of the document it replaces). */
  async publish(uploadId: string): Promise<void> {
    const u = this.state.queue.find((q) => q.uploadId === uploadId);
    if (!u || u.state !== 'ready' || this.busy()) return;
    const published = () => this.set({ queue: this.state.queue.map((q) => (q.uploadId === uploadId ? { ...q, state: 'published' } : q)) });
    if (u.replacing) {
      const doc = this.document(u.replacing);
      if (!doc) {
        this.set({ message: { text: 'The document to replace is no longer in the library.', error: true } });
        return;
      }
      const payload = { documentId: doc.id, uploadId, revision: doc.revision };
      await this.run('wiki.replace', payload, () => `The PDF of “${doc.title}” was replaced.`, published);
      return;
    }
    const problem = reviewProblem(u.review);
    if (problem) {
      this.set({ message: { text: problem, error: true } });
      return;
    }
    const payload = publishPayload(u);
    await this.run('wiki.publish', payload, () => `Published “${String(payload.title)}”.`, published);
  }

  /** Cancels the batch in progress (its unpublished uploads and their staging go). */
  async cancelBatch(): Promise<void> {
    const batchId = this.state.batchId;
    if (!batchId || this.busy()) return;
    await this.run('wiki.upload.cancel', { batchId }, () => 'The upload batch was cancelled.', () =>
      this.set({ batchId: null, queue: this.state.queue.filter((q) => q.state === 'published') }),
    );
  }

  openEdit(documentId: string): void {
    const d = this.document(documentId);
    if (!d || this.busy()) return;
    this.set({ dialog: { kind: 'editDocument', documentId, title: d.title, categoryId: d.categoryId, documentType: d.documentType }, message: null });
  }

  openRenameCategory(categoryId: string): void {
    const c = this.state.library?.categories.find((x) => x.id === categoryId);
    if (!c || this.busy()) return;
    this.set({ dialog: { kind: 'renameCategory', categoryId, name: c.name }, message: null });
  }

  editDialog(patch: WikiDialogPatch): void {
    const d = this.state.dialog;
    if (d) this.set({ dialog: { ...d, ...patch } as WikiDialog });
  }

  closeDialog(): void {
    this.set({ dialog: null });
  }

  /** The edit dialog's Save: title, category and type at the document's revision. */
  async saveEdit(): Promise<void> {
    const d = this.state.dialog;
    if (d?.kind !== 'editDocument' || this.busy()) return;
    const doc = this.document(d.documentId);
    const problem = reviewProblem({ title: d.title, categoryId: d.categoryId, documentType: d.documentType });
    if (!doc || problem) {
      this.set({ message: { text: problem ?? 'The document is no longer in the library.', error: true } });
      return;
    }
    this.set({ dialog: null });
    const payload = { documentId: doc.id, title: d.title.trim(), categoryId: d.categoryId, documentType: d.documentType, revision: doc.revision };
    await this.run('wiki.retitle', payload, () => `Saved “${d.title.trim()}”.`);
  }

  async trash(documentId: string): Promise<void> {
    const doc = this.document(documentId);
    if (!doc || this.busy()) return;
    await this.run('wiki.trash', { documentId, revision: doc.revision }, () => `“${doc.title}” was moved to the trash.`);
  }

  async restore(documentId: string): Promise<void> {
    const doc = this.document(documentId);
    if (!doc || this.busy()) return;
    await this.run('wiki.restore', { documentId, revision: doc.revision }, () => `“${doc.title}” was restored.`);
  }

  /** "Delete permanently" on a trashed document: asks first. */
  askDelete(documentId: string): void {
    const doc = this.document(documentId);
    if (!doc || doc.lifecycleState !== 'trashed' || this.busy()) return;
    this.set({ dialog: { kind: 'deleteDocument', documentId }, message: null });
  }

  /** The confirmation's Delete (the session asks for the password again when the server wants it). */
  async confirmDelete(): Promise<void> {
    const d = this.state.dialog;
    if (d?.kind !== 'deleteDocument' || this.busy()) return;
    const doc = this.document(d.documentId);
    this.set({ dialog: null });
    if (!doc) return;
    await this.run('wiki.delete', { documentId: doc.id, revision: doc.revision }, () => `“${doc.title}” was deleted permanently.`);
  }

  async createCategory(name: string): Promise<void> {
    const trimmed = name.trim();
    if (this.busy()) return;
    if (!trimmed) {
      this.set({ message: { text: 'Enter a category name.', error: true } });
      return;
    }
    await this.run('wiki.category.create', { name: trimmed }, () => `Category “${trimmed}” added.`);
  }

  async saveRenameCategory(): Promise<void> {
    const d = this.state.dialog;
    if (d?.kind !== 'renameCategory' || this.busy()) return;
    const c = this.state.library?.categories.find((x) => x.id === d.categoryId);
    const name = d.name.trim();
    if (!c || !name) {
      this.set({ message: { text: 'Enter a category name.', error: true } });
      return;
    }
    this.set({ dialog: null });
    await this.run('wiki.category.rename', { categoryId: c.id, name, revision: c.revision }, () => `Category renamed to “${name}”.`);
  }

  async moveCategory(categoryId: string, step: -1 | 1): Promise<void> {
    const order = movedOrder(this.state.library?.categories ?? [], categoryId, step);
    if (!order || this.busy()) return;
    await this.run('wiki.category.reorder', { categoryIds: order }, () => 'Categories reordered.');
  }

  /** "Delete" on a category (not the built-in one): asks where its documents go. */
  askDeleteCategory(categoryId: string): void {
    const cats = this.state.library?.categories ?? [];
    const c = cats.find((x) => x.id === categoryId);
    if (!c || c.systemKey === UNCATEGORIZED_KEY || this.busy()) return;
    const fallback = cats.find((x) => x.systemKey === UNCATEGORIZED_KEY) ?? cats.find((x) => x.id !== categoryId);
    this.set({ dialog: { kind: 'deleteCategory', categoryId, reassignTo: fallback?.id ?? '' }, message: null });
  }

  async confirmDeleteCategory(): Promise<void> {
    const d = this.state.dialog;
    if (d?.kind !== 'deleteCategory' || this.busy()) return;
    const c = this.state.library?.categories.find((x) => x.id === d.categoryId);
    if (!c || !d.reassignTo || d.reassignTo === c.id) {
      this.set({ message: { text: 'Choose the category its documents move to.', error: true } });
      return;
    }
    this.set({ dialog: null });
    const payload = { categoryId: c.id, reassignTo: d.reassignTo, revision: c.revision };
    await this.run('wiki.category.delete', payload, (r) => {
      const moved = typeof (r as { documentsMoved?: unknown })?.documentsMoved === 'number' ? (r as { documentsMoved: number }).documentsMoved : 0;
      return `Category “${c.name}” deleted; ${plural(moved, 'document')} moved.`;
    });
  }
}
