// Each exported collection's own fields in the order domain/src/collections.rs declares them
// (collectionFields.test.ts reads that file and fails when they drift), the record metadata the
// server adds to every row, and the column order a CSV export writes: the declared fields first,
// any other field next, the metadata last. Data Manager import uses the same lists to name the
// columns a file should have.

/** Per collection, its declared fields in schema order. */
export const COLLECTION_FIELDS: Readonly<Record<string, readonly string[]>> = {
  contacts: ['name', 'email', 'phone', 'title'],
  servers: ['name', 'businessArea', 'lob', 'comment', 'owner', 'contact', 'os'],
  oncall: ['team', 'role', 'name', 'contact', 'timeWindow', 'sortOrder', 'teamId'],
  bridge_groups: ['name', 'contacts'],
  bridge_history: ['note', 'groups', 'contacts', 'recipientCount'],
  alert_history: ['severity', 'subject', 'bodyHtml', 'sender', 'recipient', 'pinned', 'label', 'threadId', 'updateNumber', 'eventStart', 'eventEnd', 'timeZone'],
  notes: ['entityType', 'entityKey', 'note', 'tags'],
  standalone_notes: ['title', 'content', 'color', 'tags', 'sortOrder'],
};

/** The keys the server adds to every record, in the order an export writes them (last). */
export const RECORD_METADATA = ['id', 'created', 'updated', 'collectionId', 'collectionName'] as const;

/**
 * The export's columns for `records` of `collection`: the declared fields (all of them, even when
 * no row has a value), then keys the schema does not declare in the order first seen, then the
 * metadata keys present.
 */
export function exportColumns(collection: string, records: readonly Record<string, unknown>[]): string[] {
  const declared = COLLECTION_FIELDS[collection] ?? [];
  const metadata: readonly string[] = RECORD_METADATA;
  const seen = new Set<string>();
  for (const r of records) for (const k of Object.keys(r)) seen.add(k);
  const extra = [...seen].filter((k) => !declared.includes(k) && !metadata.includes(k));
  return [...declared, ...extra, ...metadata.filter((k) => seen.has(k))];
}
