// Markup test for Settings → Data Manager (server-rendered, no DOM): the import offers Excel
// .xlsx beside JSON and CSV, in the label and the file input's accept list. What an .xlsx becomes
// (the server's rows for the category's collection sheet) is tested with readImportFile in
// lib/importExport.test.ts.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ToastProvider } from '../../components/Toasts';
import { DataProvider } from '../../data/store';
import { TransportProvider } from '../../transport/context';
import type { Transport } from '../../transport/types';
import { DataManager } from './DataManager';

const unused = () => Promise.reject(new Error('not used in markup tests'));
const transport = {
  getFullList: unused,
  subscribe: unused,
  onStateChange: () => () => {},
  authIdentity: () => null,
  serverUrl: 'http://relay.test',
} as unknown as Transport;

describe('DataManager import markup', () => {
  it('offers .json, .csv and .xlsx files', () => {
    const html = renderToStaticMarkup(
      <TransportProvider transport={transport}>
        <ToastProvider>
          <DataProvider>
            <DataManager />
          </DataProvider>
        </ToastProvider>
      </TransportProvider>,
    );
    expect(html).toContain('File (.json, .csv or .xlsx, ≤ 25 MB, ≤ 10,000 rows)');
    expect(html).toMatch(/accept="[^"]*\.xlsx[^"]*"[^>]*data-testid="import-file"/);
    expect(html).not.toContain('not supported');
  });
});
