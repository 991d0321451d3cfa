// Test fakes for the Wiki section: the fake server-mode shell of `adminTestkit` with the `wiki.*`
// commands (a revision-checked library of categories and documents, one upload batch, publish,
// replace, retitle, trash, restore, and a delete that asks for a fresh password once per
// confirmation) and `admin_wiki_upload`, which "chooses" the files of `pick` and reports each one
// on the command's channel (queued, uploading, then ready or failed) like the desktop shell.
import { vi } from 'vitest';
import { DesktopBridge, type AdminRole } from '../../transport/desktop';
import { PASSWORD, fakeAdminShell } from './adminTestkit';

export const UNCATEGORIZED_ID = 'wikiuncategoriz';
export const NETWORK_ID = 'cat_network';
export const DOC_ID = 'doc_vpn';
export const DOC_REVISION = 4;
/** A path the fake shell knows the chosen files by; it must never reach the renderer. */
export const PICK_DIR = '/home/noc/Private/runbooks';

interface FakeUpload {
  uploadId: string;
  fileName: string;
  byteSize: number;
  state: string;
  storedChunks: number;
  chunkCount: number;
  error: string | null;
  replacing: string | null;
}

export interface PickedFile {
  fileName: string;
  byteSize: number;
  /** What the extraction makes of it. */
  outcome: 'ready' | { failed: string };
}

const stale = () => ({ code: 'rejected', message: 'the record changed meanwhile; reload and retry' });

/** The fake Tauri channel: the shell calls `onmessage` with each event. */
class FakeChannel {
  onmessage: (message: unknown) => void = () => undefined;
}

export function fakeWikiShell(opts: { role?: AdminRole } = {}) {
  const admin = fakeAdminShell({ role: opts.role });
  const wiki = {
    categories: [
      { id: NETWORK_ID, name: 'Network', normalizedName: 'network', revision: 2, sortOrder: 1, systemKey: '' },
      { id: UNCATEGORIZED_ID, name: 'Uncategorized', normalizedName: 'uncategorized', revision: 1, sortOrder: 1_000_000, systemKey: 'uncategorized' },
    ],
    documents: [
      {
        id: DOC_ID, revision: DOC_REVISION, title: 'VPN runbook', fileName: 'vpn.pdf', categoryId: NETWORK_ID, documentType: 'sop', pageCount: 12,
        lifecycleState: 'active', searchIndexState: 'indexed', checksum: 'c'.repeat(64), sourceKey: 'managed:x',
      },
    ] as Record<string, unknown>[],
    batchId: null as string | null,
    uploads: [] as FakeUpload[],
    /** What the next chooser returns (empty: cancelled). */
    pick: [] as PickedFile[],
    /** The session's password is fresh (confirmed) for the next `wiki.delete`. */
    fresh: false,
    next: 1,
  };
  const doc = (id: unknown) => wiki.documents.find((d) => d.id === id);
  const checked = (p: Record<string, unknown>) => {
    const d = doc(p.documentId);
    if (!d) throw { code: 'invalid', message: 'the Wiki record no longer exists' };
    if (p.revision !== d.revision) throw stale();
    d.revision = Number(d.revision) + 1;
    return d;
  };
  const category = (id: unknown) => wiki.categories.find((c) => c.id === id);
  const status = () => ({ batchId: wiki.batchId, uploads: wiki.uploads.map(({ replacing: _r, ...u }) => ({ ...u, chunkSize: 4 << 20 })) });

  function runWiki(command: string, p: Record<string, unknown>): unknown {
    switch (command) {
      case 'wiki.library':
        return { categories: wiki.categories, documents: wiki.documents };
      case 'wiki.upload.status':
        return wiki.batchId ? status() : { batchId: null, uploads: [] };
      case 'wiki.upload.cancel':
        wiki.batchId = null;
        wiki.uploads = [];
        return { batchId: p.batchId, cancelled: 1 };
      case 'wiki.publish': {
        const u = wiki.uploads.find((x) => x.uploadId === p.uploadId && x.state === 'ready');
        if (!u) throw { code: 'rejected', message: 'invalid input: the upload is not ready for review' };
        u.state = 'published';
        const d = {
          id: `doc_${wiki.next++}`, revision: 1, title: p.title, fileName: u.fileName, categoryId: p.categoryId, documentType: p.documentType,
          pageCount: 3, lifecycleState: 'active', searchIndexState: 'pending',
        };
        wiki.documents.push(d);
        return d;
      }
      case 'wiki.replace': {
        const d = checked(p);
        const u = wiki.uploads.find((x) => x.uploadId === p.uploadId);
        if (u) u.state = 'published';
        return d;
      }
      case 'wiki.retitle':
        return Object.assign(checked(p), { title: p.title, categoryId: p.categoryId, documentType: p.documentType });
      case 'wiki.trash':
        return Object.assign(checked(p), { lifecycleState: 'trashed' });
      case 'wiki.restore':
        return Object.assign(checked(p), { lifecycleState: 'active' });
      case 'wiki.delete': {
        if (!wiki.fresh) throw { code: 'passwordRequired', message: 'Confirm your password to continue.' };
        wiki.fresh = false;
        const d = checked(p);
        wiki.documents = wiki.documents.filter((x) => x !== d);
        return { deleted: d.id };
      }
      case 'wiki.category.create': {
        const c = { id: `cat_${wiki.next++}`, name: String(p.name), normalizedName: String(p.name).toLowerCase(), revision: 1, sortOrder: 2, systemKey: '' };
        wiki.categories.push(c);
        return c;
      }
      case 'wiki.category.rename': {
        const c = category(p.categoryId);
        if (!c || c.revision !== p.revision) throw stale();
        Object.assign(c, { name: p.name, revision: c.revision + 1 });
        return c;
      }
      case 'wiki.category.reorder': {
        const ids = p.categoryIds as string[];
        wiki.categories = ids.map((id, i) => Object.assign(category(id)!, { sortOrder: i }));
        return { categories: wiki.categories };
      }
      case 'wiki.category.delete': {
        const c = category(p.categoryId);
        if (!c || c.revision !== p.revision) throw stale();
        if (c.systemKey) throw { code: 'rejected', message: 'invalid input: the built-in category cannot be deleted' };
        const moved = wiki.documents.filter((d) => d.categoryId === c.id);
        for (const d of moved) d.categoryId = p.reassignTo;
        wiki.categories = wiki.categories.filter((x) => x !== c);
        return { deleted: c.id, documentsMoved: moved.length };
      }
      default:
        throw { code: 'invalid', message: 'unknown command' };
    }
  }

  const send = (channel: FakeChannel, u: FakeUpload) => channel.onmessage({ ...u, replacing: undefined, path: `${PICK_DIR}/${u.fileName}` });

  async function upload(args: Record<string, unknown>): Promise<unknown> {
    if (!admin.state.session) throw { code: 'locked', message: 'locked' };
    const channel = args.onProgress as FakeChannel;
    if (!wiki.pick.length) return { batchId: null, files: [] };
    if (wiki.batchId) throw { code: 'rejected', message: 'invalid input: finish or cancel the upload batch in progress first' };
    wiki.batchId = `batch_${wiki.next++}`;
    const replacing = typeof args.replacementDocumentId === 'string' ? args.replacementDocumentId : null;
    wiki.uploads = wiki.pick.map((f, i) => ({
      uploadId: `up_${i + 1}`, fileName: f.fileName, byteSize: f.byteSize, state: 'queued', storedChunks: 0, chunkCount: Math.max(1, Math.ceil(f.byteSize / (4 << 20))), error: null, replacing,
    }));
    for (const u of wiki.uploads) send(channel, u);
    wiki.pick.forEach((f, i) => {
      const u = wiki.uploads[i];
      u.state = 'uploading';
      send(channel, u);
      u.storedChunks = u.chunkCount;
      if (f.outcome === 'ready') u.state = 'ready';
      else Object.assign(u, { state: 'failed', error: f.outcome.failed });
      send(channel, u);
    });
    return { batchId: wiki.batchId, files: wiki.uploads.map(({ replacing: _r, ...u }) => u) };
  }

  const invoke = vi.fn(async (cmd: string, args?: Record<string, unknown>): Promise<unknown> => {
    if (cmd === 'admin_wiki_upload') return upload(args ?? {});
    if (cmd === 'admin_confirm_password' && args?.password === PASSWORD) wiki.fresh = true;
    if (cmd === 'admin_command' && String(args?.command).startsWith('wiki.')) {
      if (!admin.state.session) throw { code: 'locked', message: 'locked' };
      return runWiki(String(args?.command), (args?.payload ?? {}) as Record<string, unknown>);
    }
    return admin.invoke(cmd, args);
  });
  const w = { __TAURI__: { core: { invoke, Channel: FakeChannel } } };
  return {
    admin,
    wiki,
    invoke,
    bridge: new DesktopBridge(w.__TAURI__),
    /** The wiki.* admin_command calls, in order. */
    commands(): { command: string; payload: Record<string, unknown> }[] {
      return invoke.mock.calls
        .filter(([c, a]) => c === 'admin_command' && String(a?.command).startsWith('wiki.'))
        .map(([, a]) => ({ command: String(a?.command), payload: (a?.payload ?? {}) as Record<string, unknown> }));
    },
  };
}
