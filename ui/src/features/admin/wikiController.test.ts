// The Wiki section's model and flow against the fake server-mode shell (through the real
// DesktopBridge and the real AdminController): the library read field by field, the queue built
// from the shell's progress events (no path kept), the review's defaults and the publish payload,
// every command at the record's current revision, a stale revision reloading the library with a
// plain message, the delete confirmation with the session's fresh-password prompt retried once,
// categories moved with the whole list and deleted with a reassignment, and which roles see it.
import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { createElement } from 'react';
import type { AdminRole, WikiUploadEvent } from '../../transport/desktop';
import { AdminController } from './adminController';
import { PASSWORD, fakeInput } from './adminTestkit';
import { WikiController, showsWiki } from './wikiController';
import {
  STALE_TEXT,
  applyUploadEvent,
  movedOrder,
  publishPayload,
  queueFromStatus,
  reasonText,
  titleFromFileName,
  wikiLibrary,
  type UploadItem,
} from './wikiModel';
import { WikiSection } from './WikiSection';
import { DOC_ID, DOC_REVISION, NETWORK_ID, PICK_DIR, UNCATEGORIZED_ID, fakeWikiShell } from './wikiTestkit';

async function section(role?: AdminRole) {
  const shell = fakeWikiShell({ role });
  const admin = new AdminController(shell.bridge);
  await admin.start();
  const wiki = new WikiController(shell.bridge, admin);
  await wiki.start();
  return { shell, admin, wiki };
}

const event = (patch: Partial<WikiUploadEvent>): WikiUploadEvent => ({
  uploadId: 'up_1', fileName: 'night-shift_handover.pdf', byteSize: 2048, state: 'queued', storedChunks: 0, chunkCount: 1, error: null, ...patch,
});

describe('model', () => {
  it('reads the library field by field', () => {
    const lib = wikiLibrary({
      categories: [{ id: 'c1', name: 'Network', revision: 3, systemKey: '', normalizedName: 'network' }],
      documents: [{ id: 'd1', revision: 2, title: 'T', categoryId: 'c1', documentType: 'cheatsheet', pageCount: 4, lifecycleState: 'trashed', checksum: 'x', sourceKey: 'managed:1' }],
    });
    expect(lib.categories).toEqual([{ id: 'c1', name: 'Network', revision: 3, systemKey: '' }]);
    expect(lib.documents[0]).toEqual({
      id: 'd1', revision: 2, title: 'T', fileName: '', categoryId: 'c1', documentType: 'cheatsheet', pageCount: 4, lifecycleState: 'trashed', searchIndexState: 'pending',
    });
  });

  it('updates an upload in place from its events and keeps a review being typed', () => {
    const lib = wikiLibrary({ categories: [{ id: 'u', name: 'Uncategorized', revision: 1, systemKey: 'uncategorized' }], documents: [] });
    let q: UploadItem[] = applyUploadEvent([], event({}), lib);
    expect(q[0]).toMatchObject({ state: 'queued', review: { title: 'Night shift handover', categoryId: 'u', documentType: 'sop' } });
    q = applyUploadEvent(q, event({ state: 'uploading' }), lib);
    q = q.map((u) => ({ ...u, review: { ...u.review, title: 'Handover' } }));
    q = applyUploadEvent(q, event({ state: 'ready', storedChunks: 1 }), lib);
    expect(q).toHaveLength(1);
    expect(q[0]).toMatchObject({ state: 'ready', storedChunks: 1, review: { title: 'Handover' } });
    q = applyUploadEvent(q, event({ uploadId: 'up_2', fileName: 'bad.pdf', state: 'failed', error: 'malformed-pdf' }), lib);
    expect(q.map((u) => u.state)).toEqual(['ready', 'failed']);
    const published = q.map((u) => (u.uploadId === 'up_1' ? { ...u, state: 'published' as const } : u));
    expect(applyUploadEvent(published, event({ state: 'ready' }), lib)[0].state).toBe('published');
    const completed = queueFromStatus({ batchId: null, uploads: [] }, [...published, { ...published[0], uploadId: 'up_3', state: 'ready' }], lib);
    expect(completed).toEqual({ batchId: null, queue: published });
    expect(reasonText('malformed-pdf')).toBe('the file is damaged or not a valid PDF');
    expect(reasonText('The source PDF changed or moved')).toBe('The source PDF changed or moved');
  });

  it('builds the publish payload from the review and moves categories in the whole list', () => {
    expect(titleFromFileName('SOP_router-reboot.PDF')).toBe('SOP router reboot');
    expect(publishPayload({ uploadId: 'up_1', review: { title: '  Router reboot ', categoryId: 'c1', documentType: 'cheatsheet' } }))
      .toEqual({ uploadId: 'up_1', title: 'Router reboot', categoryId: 'c1', documentType: 'cheatsheet' });
    const cats = ['a', 'b', 'c'].map((id) => ({ id, name: id, revision: 1, systemKey: '' }));
    expect(movedOrder(cats, 'b', -1)).toEqual(['b', 'a', 'c']);
    expect(movedOrder(cats, 'c', 1)).toBeNull();
  });
});

describe('the Wiki section', () => {
  it('shows for the Owner, an Administrator and the Publisher only while signed in', () => {
    for (const role of ['owner', 'administrator', 'publisher'] as const) {
      expect(showsWiki({ phase: 'session', session: { username: 'x', role, lockAtMs: 0 } })).toBe(true);
    }
    expect(showsWiki({ phase: 'signedOut', session: null })).toBe(false);
  });

  it('loads the library and the batch in progress', async () => {
    const { shell, admin, wiki } = await section('publisher');
    expect(shell.commands().map((c) => c.command)).toEqual(['wiki.library', 'wiki.upload.status']);
    expect(shell.admin.names()).not.toContain('admin.snapshot');
    expect(admin.getState()).toMatchObject({ phase: 'session', message: null });
    expect(wiki.getState()).toMatchObject({ phase: 'ready', batchId: null, queue: [] });
    expect(wiki.getState().library?.documents.map((d) => d.title)).toEqual(['VPN runbook']);
  });

  it('fills the queue from progress events (no path kept), then publishes a review as typed', async () => {
    const { shell, wiki } = await section();
    shell.wiki.pick = [
      { fileName: 'router_reboot.pdf', byteSize: 9 << 20, outcome: 'ready' },
      { fileName: 'garbage.pdf', byteSize: 40, outcome: { failed: 'malformed-pdf' } },
    ];
    const seen: string[] = [];
    wiki.subscribe(() => seen.push(wiki.getState().queue.map((u) => `${u.fileName}:${u.state}`).join(',')));
    await wiki.upload(null);
    expect(seen).toContain('router_reboot.pdf:uploading,garbage.pdf:queued');
    const s = wiki.getState();
    expect(s.queue.map((u) => [u.fileName, u.state, u.error])).toEqual([
      ['router_reboot.pdf', 'ready', null],
      ['garbage.pdf', 'failed', 'malformed-pdf'],
    ]);
    expect(s.queue[0]).toMatchObject({ storedChunks: 3, chunkCount: 3, review: { title: 'Router reboot', categoryId: UNCATEGORIZED_ID } });
    expect(s.message).toEqual({ text: '2 files uploaded: 1 ready for review, 1 failed.', error: true });
    expect(s.batchId).toBe('batch_1');
    expect(JSON.stringify(s)).not.toContain(PICK_DIR);

    wiki.edit('up_1', { title: 'Router reboot (core)', categoryId: NETWORK_ID, documentType: 'cheatsheet' });
    await wiki.publish('up_1');
    expect(shell.commands().find((c) => c.command === 'wiki.publish')?.payload)
      .toEqual({ uploadId: 'up_1', title: 'Router reboot (core)', categoryId: NETWORK_ID, documentType: 'cheatsheet' });
    expect(wiki.getState().queue.map((u) => u.state)).toEqual(['published', 'failed']);
    expect(wiki.getState().message).toEqual({ text: 'Published “Router reboot (core)”.', error: false });
    expect(wiki.getState().library?.documents.map((d) => d.title)).toContain('Router reboot (core)');
  });

  it('says so when the chooser was cancelled', async () => {
    const { shell, wiki } = await section();
    await wiki.upload(null);
    expect(wiki.getState().message).toEqual({ text: 'No file was chosen.', error: false });
    expect(shell.invoke.mock.calls.filter(([c]) => c === 'admin_wiki_upload')[0][1]).toMatchObject({ replacementDocumentId: null });
  });

  it('replaces a document’s PDF at its revision', async () => {
    const { shell, wiki } = await section();
    shell.wiki.pick = [{ fileName: 'vpn-v2.pdf', byteSize: 100, outcome: 'ready' }];
    await wiki.upload(DOC_ID);
    expect(shell.invoke.mock.calls.find(([c]) => c === 'admin_wiki_upload')?.[1]).toMatchObject({ replacementDocumentId: DOC_ID });
    expect(wiki.getState().queue[0]).toMatchObject({ replacing: DOC_ID, state: 'ready' });
    await wiki.publish('up_1');
    expect(shell.commands().find((c) => c.command === 'wiki.replace')?.payload).toEqual({ documentId: DOC_ID, uploadId: 'up_1', revision: DOC_REVISION });
    expect(wiki.getState().message?.text).toBe('The PDF of “VPN runbook” was replaced.');
  });

  it('passes each document’s current revision: edit, trash, restore', async () => {
    const { shell, wiki } = await section();
    wiki.openEdit(DOC_ID);
    wiki.editDialog({ title: 'VPN runbook v2', documentType: 'cheatsheet' });
    await wiki.saveEdit();
    await wiki.trash(DOC_ID);
    await wiki.restore(DOC_ID);
    const sent = shell.commands().filter((c) => ['wiki.retitle', 'wiki.trash', 'wiki.restore'].includes(c.command));
    expect(sent.map((c) => [c.command, c.payload.revision])).toEqual([
      ['wiki.retitle', DOC_REVISION], ['wiki.trash', DOC_REVISION + 1], ['wiki.restore', DOC_REVISION + 2],
    ]);
    expect(sent[0].payload).toEqual({ documentId: DOC_ID, title: 'VPN runbook v2', categoryId: NETWORK_ID, documentType: 'cheatsheet', revision: DOC_REVISION });
    expect(wiki.getState().library?.documents[0]).toMatchObject({ lifecycleState: 'active', revision: DOC_REVISION + 3 });
  });

  it('reloads the library with a plain message on a stale revision', async () => {
    const { shell, wiki } = await section();
    shell.wiki.documents[0].revision = DOC_REVISION + 5; // someone else changed it
    await wiki.trash(DOC_ID);
    await Promise.resolve();
    await new Promise((r) => setTimeout(r, 0));
    expect(wiki.getState().message).toEqual({ text: STALE_TEXT, error: true });
    expect(wiki.getState().library?.documents[0].revision).toBe(DOC_REVISION + 5);
    await wiki.trash(DOC_ID);
    expect(wiki.getState().library?.documents[0].lifecycleState).toBe('trashed');
  });

  it('deletes permanently only after the confirmation, asking for the password again once', async () => {
    const { shell, admin, wiki } = await section();
    await wiki.trash(DOC_ID);
    wiki.askDelete(DOC_ID);
    expect(wiki.getState().dialog).toEqual({ kind: 'deleteDocument', documentId: DOC_ID });
    expect(shell.commands().some((c) => c.command === 'wiki.delete')).toBe(false);
    await wiki.confirmDelete();
    expect(admin.getState().dialog).toEqual({ kind: 'freshPassword', error: null });
    admin.fields.fresh.ref(fakeInput(PASSWORD));
    await admin.submitFreshPassword();
    const deletes = shell.commands().filter((c) => c.command === 'wiki.delete');
    expect(deletes).toHaveLength(2);
    expect(deletes.every((c) => c.payload.documentId === DOC_ID && c.payload.revision === DOC_REVISION + 1)).toBe(true);
    expect(wiki.getState().library?.documents).toEqual([]);
    expect(wiki.getState().message).toEqual({ text: '“VPN runbook” was deleted permanently.', error: false });
  });

  it('adds, renames, moves and deletes categories (documents reassigned; the built-in one stays)', async () => {
    const { shell, wiki } = await section();
    await wiki.createCategory('  Servers ');
    expect(shell.commands().at(-3)).toEqual({ command: 'wiki.category.create', payload: { name: 'Servers' } });
    await wiki.moveCategory(UNCATEGORIZED_ID, -1);
    const reorder = shell.commands().find((c) => c.command === 'wiki.category.reorder');
    expect(reorder?.payload).toEqual({ categoryIds: [UNCATEGORIZED_ID, NETWORK_ID, 'cat_1'] });
    wiki.openRenameCategory(NETWORK_ID);
    wiki.editDialog({ name: 'Networking' });
    await wiki.saveRenameCategory();
    expect(shell.commands().find((c) => c.command === 'wiki.category.rename')?.payload).toEqual({ categoryId: NETWORK_ID, name: 'Networking', revision: 2 });
    wiki.askDeleteCategory(UNCATEGORIZED_ID);
    expect(wiki.getState().dialog).toBeNull();
    wiki.askDeleteCategory(NETWORK_ID);
    expect(wiki.getState().dialog).toEqual({ kind: 'deleteCategory', categoryId: NETWORK_ID, reassignTo: UNCATEGORIZED_ID });
    await wiki.confirmDeleteCategory();
    expect(shell.commands().find((c) => c.command === 'wiki.category.delete')?.payload).toEqual({ categoryId: NETWORK_ID, reassignTo: UNCATEGORIZED_ID, revision: 3 });
    expect(wiki.getState().message?.text).toBe('Category “Networking” deleted; 1 document moved.');
    expect(wiki.getState().library?.documents[0].categoryId).toBe(UNCATEGORIZED_ID);
  });

  it('renders labelled progress bars, states with reasons and the review form', async () => {
    const { shell, admin, wiki } = await section();
    shell.wiki.pick = [
      { fileName: 'router_reboot.pdf', byteSize: 100, outcome: 'ready' },
      { fileName: 'garbage.pdf', byteSize: 40, outcome: { failed: 'malformed-pdf' } },
    ];
    await wiki.upload(null);
    const html = renderToStaticMarkup(createElement(WikiSection, { state: wiki.getState(), busy: admin.getState().busy, ctl: wiki }));
    expect(html).toContain('aria-label="router_reboot.pdf: Ready for review"');
    expect(html).toContain('Failed: the file is damaged or not a valid PDF');
    expect(html).toContain('data-testid="admin-wiki-review-title"');
    expect(html).toContain('<option value="cheatsheet">Quick Guide</option>');
    expect(html).toContain('data-testid="admin-wiki-cancel-batch"');
    expect(html).not.toContain(PICK_DIR);
  });
});
