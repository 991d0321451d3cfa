// @vitest-environment jsdom
// Data Manager import of a CMDB-style file: aliases ("Server Name", "OS Type", "IT Contact") are
// renamed to the servers' fields before the rows reach the server, and the preview says so; a
// column that matches nothing is one line naming it and the expected columns, with nothing sent
// (never one "validation_unknown_field" row error per cell).
import { act } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { ToastProvider } from '../../components/Toasts';
import { DataProvider } from '../../data/store';
import { domRoot, flush } from '../../lib/domTest';
import { fakeTransport } from '../../lib/domTransport';
import { TransportProvider } from '../../transport/context';
import type { ImportReport } from '../../transport/types';
import { DataManager } from './DataManager';

const dom = domRoot();

/** What the server answers for `records`: an unknown-field error per cell of an undeclared key. */
function serverReport(collection: string, records: Record<string, unknown>[], fields: string[]): ImportReport {
  const errors = records.flatMap((r, i) => Object.keys(r).filter((k) => !fields.includes(k)).map((k) => ({ row: i + 1, field: k, code: 'validation_unknown_field', message: 'Unknown field.' })));
  return { collection, total: records.length, creates: records.length, updates: 0, applied: false, errors };
}

async function importFile(name: string, text: string) {
  const importRecords = vi.fn(async (c: string, records: Record<string, unknown>[]) => serverReport(c, records, ['name', 'businessArea', 'lob', 'comment', 'owner', 'contact', 'os']));
  const { transport } = fakeTransport({}, { importRecords });
  const host = await dom.render(
    <TransportProvider transport={transport}>
      <ToastProvider>
        <DataProvider>
          <DataManager />
        </DataProvider>
      </ToastProvider>
    </TransportProvider>,
  );
  const select = host.querySelector<HTMLSelectElement>('[data-testid="import-category"]')!;
  await act(async () => {
    select.value = 'servers';
    select.dispatchEvent(new Event('change', { bubbles: true }));
  });
  const input = host.querySelector<HTMLInputElement>('[data-testid="import-file"]')!;
  const file = new File([text], name, { type: 'text/csv' });
  Object.defineProperty(input, 'files', { configurable: true, value: [file] });
  await act(async () => {
    input.dispatchEvent(new Event('change', { bubbles: true }));
  });
  await flush();
  return { host, importRecords };
}

describe('Data Manager import columns', () => {
  it('renames CMDB aliases before sending and shows the mapping', async () => {
    const { host, importRecords } = await importFile('cmdb.csv', 'Server Name,OS Type,IT Contact,business area\nweb01,Linux,Ann,Payments\n');
    expect(importRecords).toHaveBeenCalledTimes(1);
    expect(importRecords.mock.calls[0][1]).toEqual([{ name: 'web01', os: 'Linux', contact: 'Ann', businessArea: 'Payments' }]);
    expect(host.querySelector('[data-testid="import-column-map"]')?.textContent).toBe('Columns matched: Server Name → name · OS Type → os · IT Contact → contact · business area → businessArea');
    expect(host.querySelector('[data-testid="import-report"]')?.getAttribute('data-errors')).toBe('0');
  });

  it('names unknown columns once, with the expected ones, and sends nothing', async () => {
    const { host, importRecords } = await importFile('bad.csv', 'Server Name,Rack,Power Feed\nweb01,R1,A\nweb02,R2,B\n');
    expect(importRecords).not.toHaveBeenCalled();
    expect(host.querySelector('[data-testid="import-error"]')?.textContent).toBe('Unknown columns: Rack, Power Feed. Expected: name, businessArea, lob, comment, owner, contact, os.');
    expect(host.querySelectorAll('[data-testid="import-row-error"]')).toHaveLength(0);
    expect(host.textContent).not.toContain('validation_unknown_field');
  });
});
