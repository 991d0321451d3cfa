// The UI's declared field order must equal the server's schema: reads domain/src/collections.rs
// (read-only) and compares each exported collection's fields, in order. Also checks the CSV
// export's column order built from it.
import { describe, expect, it } from 'vitest';
import collectionsRs from '../../../domain/src/collections.rs?raw';
import { COLLECTION_FIELDS, exportColumns } from './collectionFields';
import { exportText } from './importExport';

/** { collection: [field, …] } in declaration order, parsed from collections.rs. */
function serverFieldOrder(src: string): Record<string, string[]> {
  const shared: Record<string, string> = {};
  for (const m of src.matchAll(/const ([A-Z_]+): FieldSpec = \w+\("([A-Za-z]+)"/g)) shared[m[1]] = m[2];
  const out: Record<string, string[]> = {};
  for (const block of src.split(/pub static [A-Z_]+: CollectionSpec = CollectionSpec \{/).slice(1)) {
    const name = /name: "([a-z_]+)"/.exec(block)![1];
    const fields = block.slice(block.indexOf('fields: &['), block.indexOf('unique:'));
    const re = /\b(?:required_text|text|number|boolean|date|select|string_array)\("([A-Za-z]+)"|FieldSpec \{\s*name: "([A-Za-z]+)"|\b([A-Z][A-Z_]+)\b(?=\s*[,\]])/g;
    out[name] = [...fields.matchAll(re)].map((m) => m[1] ?? m[2] ?? shared[m[3]]).filter((f): f is string => Boolean(f));
  }
  return out;
}

describe('COLLECTION_FIELDS', () => {
  const server = serverFieldOrder(collectionsRs);
  it('parsed the Rust source', () => {
    expect(server.contacts).toEqual(['name', 'email', 'phone', 'title']);
  });
  for (const [collection, fields] of Object.entries(COLLECTION_FIELDS)) {
    it(`${collection} matches the schema's order`, () => expect(fields).toEqual(server[collection]));
  }
});

describe('CSV export columns', () => {
  // What the server answers: keys in alphabetical order, metadata mixed in.
  const row = { businessArea: 'Pay', collectionId: 'pbc_servers', collectionName: 'servers', comment: '', contact: 'ann', created: '2026-01-01', id: 'r1', lob: 'Retail', name: 'web01', os: 'Linux', owner: 'bob', updated: '2026-01-02' };
  it('writes the declared fields in order, metadata last', () => {
    const header = exportText([row], 'csv', 'servers').split('\r\n')[0];
    expect(header).toBe('name,businessArea,lob,comment,owner,contact,os,id,created,updated,collectionId,collectionName');
  });
  it('keeps undeclared keys between the fields and the metadata, and the formula guard', () => {
    expect(exportColumns('contacts', [{ id: 'x', zeta: 1, name: 'A' }])).toEqual(['name', 'email', 'phone', 'title', 'zeta', 'id']);
    expect(exportText([{ name: '=cmd()', id: 'x' }], 'csv', 'contacts')).toBe("name,email,phone,title,id\r\n'=cmd(),,,,x\r\n");
  });
});
