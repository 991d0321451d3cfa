// Servers sync, the apply half: sends a previewed plan (serverSyncPlan) to `POST
// /api/relay/servers/sync` in all-or-nothing batches, saves first (creates, then updates) and
// removals after, at most 100 operations and 4 MiB a batch. Before each batch it checks that the
// connection and the signed-in identity are those of the preview and re-reads the whole list,
// which must still equal what the preview read plus this run's own confirmed writes; it checks the
// list once more at the end. A plan applies once; nothing is ever retried. When a batch was in
// flight and no confirmed 4xx came back, the outcome is uncertain and the result says so.
import { fieldLabel } from '../../lib/limits';
import { ServerSyncRefusal, isTransportError, type ServerSyncOperation } from '../../transport/types';
import type { ServerRecord, SyncPlan } from './serverSyncPlan';

export const CONNECTION_CHANGED = 'The Relay connection or account changed. Create a fresh sync preview.';
export const LIST_CHANGED = 'The Servers list changed after the preview. No further changes were made.';
export const ROUTE_CONFLICT = 'The Servers list changed after the preview. Create a fresh preview.';
export const ROUTE_MISSING = 'Update the Relay server before syncing the Servers list.';
export const OUTCOME_UNCERTAIN = 'The last batch may have applied. Counts include confirmed changes only. Refresh the preview before retrying.';
export const PREVIEW_USED = 'This preview was already applied. Create a fresh sync preview.';
export const BAD_ANSWER = 'The Relay server answered the sync with an unexpected response.';

export const MAX_BATCH_OPERATIONS = 100;
export const MAX_BATCH_BYTES = 4 * 1024 * 1024;

export interface SyncProgress {
  stage: 'saving' | 'removing';
  /** Operations confirmed so far, out of `total` (saves and removals together). */
  processed: number;
  total: number;
  imported: number;
  updated: number;
  removed: number;
}

export interface SyncResult {
  imported: number;
  updated: number;
  removed: number;
  unchanged: number;
  errors: string[];
  /** A batch was in flight and its outcome is unknown (network failure, 5xx, bad answer). */
  outcomeUncertain: boolean;
}

export interface SyncDeps {
  /** The whole Servers collection, as the record API returns it. */
  readAll(): Promise<unknown[]>;
  /** One batch (Transport.syncServers). */
  send(operations: ServerSyncOperation[]): Promise<unknown>;
  /** Whether the connection is up now. */
  online(): boolean;
  /** The transport's authIdentity() now. */
  identity(): string | null;
  onProgress?(p: SyncProgress): void;
}

/** Canonical text of a list: records sorted by id, keys sorted at every level, `expand` dropped. */
export function canonicalList(rows: readonly unknown[]): string {
  const sortKeys = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sortKeys);
    if (!v || typeof v !== 'object') return v;
    const o = v as Record<string, unknown>;
    return Object.fromEntries(Object.keys(o).sort().map((k) => [k, sortKeys(o[k])]));
  };
  const id = (r: unknown) => String((r as { id?: unknown } | null)?.id ?? '');
  const sorted = [...rows].sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0));
  return JSON.stringify(
    sorted.map((r) => {
      if (!r || typeof r !== 'object') return r;
      const { expand: _, ...rest } = r as Record<string, unknown>;
      return sortKeys(rest);
    }),
  );
}

/** Splits operations, in order, into batches of at most `maxOps` operations and `maxBytes` of body. */
export function batches(ops: readonly ServerSyncOperation[], maxOps = MAX_BATCH_OPERATIONS, maxBytes = MAX_BATCH_BYTES): ServerSyncOperation[][] {
  const envelope = new TextEncoder().encode('{"operations":[]}').length;
  const out: ServerSyncOperation[][] = [];
  let batch: ServerSyncOperation[] = [];
  let bytes = envelope;
  for (const op of ops) {
    const size = new TextEncoder().encode(JSON.stringify(op)).length + 1; // + the comma
    if (batch.length > 0 && (batch.length >= maxOps || bytes + size > maxBytes)) {
      out.push(batch);
      batch = [];
      bytes = envelope;
    }
    batch.push(op);
    bytes += size;
  }
  if (batch.length > 0) out.push(batch);
  return out;
}

const applied = new WeakSet<SyncPlan>();

/** Whether `plan` was already handed to applyServersSync (a preview applies once). */
export function isApplied(plan: SyncPlan): boolean {
  return applied.has(plan);
}

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Validates a batch answer; the saved records in operation order (null for removals) or null. */
function readAnswer(answer: unknown, ops: readonly ServerSyncOperation[]): (ServerRecord | null)[] | null {
  if (!Array.isArray(answer) || answer.length !== ops.length) return null;
  const out: (ServerRecord | null)[] = [];
  for (let i = 0; i < ops.length; i++) {
    const entry: unknown = answer[i];
    const op = ops[i];
    if (!isRecord(entry) || typeof entry.status !== 'number' || entry.status < 200 || entry.status > 299) return null;
    if (op.action === 'delete') {
      out.push(null);
      continue;
    }
    const body = entry.body;
    if (!isRecord(body) || typeof body.id !== 'string' || body.id === '') return null;
    if (op.action === 'update' && body.id !== op.recordId) return null;
    out.push(body as ServerRecord);
  }
  return out;
}

/** The text for a failed batch and whether its outcome is unknown. */
function describeFailure(err: unknown, names: readonly string[]): { message: string; uncertain: boolean } {
  if (!isTransportError(err) || err.status === 0 || err.status >= 500) {
    const why = err instanceof Error && err.message ? err.message : 'The sync request failed.';
    return { message: why, uncertain: true };
  }
  if (err.status === 409) return { message: ROUTE_CONFLICT, uncertain: false };
  if (err.status === 404) return { message: ROUTE_MISSING, uncertain: false };
  if (err instanceof ServerSyncRefusal) {
    const fields = Object.entries(err.fieldErrors).map(([f, v]) => `${fieldLabel(f, 'servers')}: ${v.message}`);
    const who = names[err.operation] === undefined ? '' : ` Server "${names[err.operation]}"`;
    return { message: `${err.message}${who}${fields.length ? `: ${fields.join(' ')}` : ''}`, uncertain: false };
  }
  return { message: err.message, uncertain: false };
}

/**
 * Applies `plan` once. Resolves with confirmed counts and the errors that stopped it (never
 * rejects); after a stop nothing further is sent.
 */
export async function applyServersSync(plan: SyncPlan, deps: SyncDeps): Promise<SyncResult> {
  const result: SyncResult = { imported: 0, updated: 0, removed: 0, unchanged: plan.unchanged, errors: [], outcomeUncertain: false };
  if (applied.has(plan)) return { ...result, errors: [PREVIEW_USED] };
  applied.add(plan);

  const expected = new Map(plan.snapshot.map((r) => [r.id, r]));
  const reviewed = (id: string) => expected.get(id) as Record<string, unknown>;
  const saves: { op: ServerSyncOperation; name: string }[] = [
    ...plan.added.map((a) => ({ op: { action: 'create' as const, data: a.data }, name: a.name })),
    ...plan.updated.map((u) => ({ op: { action: 'update' as const, recordId: u.id, expected: reviewed(u.id), data: u.patch }, name: u.name })),
  ];
  const removals = plan.removed.map((r) => ({ op: { action: 'delete' as const, recordId: r.id, expected: reviewed(r.id) }, name: r.name }));
  const names = new Map([...saves, ...removals].map((s) => [s.op, s.name]));
  const total = saves.length + removals.length;
  let processed = 0;
  const progress = (stage: SyncProgress['stage']) =>
    deps.onProgress?.({ stage, processed, total, imported: result.imported, updated: result.updated, removed: result.removed });

  const stop = (...errors: string[]) => {
    result.errors.push(...errors);
    return result;
  };
  const connectionKept = () => deps.online() && deps.identity() === plan.identity;
  /** Null when the stored list is what this run expects, else the reason to stop. */
  const listCheck = async (): Promise<string | null> => {
    let rows: unknown[];
    try {
      rows = await deps.readAll();
    } catch (err) {
      return `The Servers list could not be re-read: ${err instanceof Error ? err.message : 'unknown error'} No further changes were made.`;
    }
    return canonicalList(rows) === canonicalList([...expected.values()]) ? null : LIST_CHANGED;
  };

  const stages: [SyncProgress['stage'], { op: ServerSyncOperation }[]][] = [['saving', saves], ['removing', removals]];
  for (const [stage, items] of stages) {
    if (items.length === 0) continue;
    progress(stage);
    for (const ops of batches(items.map((i) => i.op))) {
      if (!connectionKept()) return stop(CONNECTION_CHANGED);
      const changed = await listCheck();
      if (changed) return stop(changed);
      if (!connectionKept()) return stop(CONNECTION_CHANGED);
      let answer: unknown;
      try {
        answer = await deps.send(ops);
      } catch (err) {
        const failure = describeFailure(err, ops.map((op) => names.get(op) ?? ''));
        result.outcomeUncertain = failure.uncertain;
        return failure.uncertain ? stop(failure.message, OUTCOME_UNCERTAIN) : stop(failure.message);
      }
      const saved = readAnswer(answer, ops);
      if (!saved) {
        result.outcomeUncertain = true;
        return stop(BAD_ANSWER, OUTCOME_UNCERTAIN);
      }
      ops.forEach((op, i) => {
        if (op.action === 'delete') {
          expected.delete(op.recordId);
          result.removed++;
        } else {
          expected.set(saved[i]!.id, saved[i]!);
          if (op.action === 'create') result.imported++;
          else result.updated++;
        }
      });
      processed += ops.length;
      progress(stage);
    }
  }
  const changed = await listCheck();
  return changed ? stop(changed) : result;
}
