// Data Manager: overview counts, import (JSON / CSV parsed here, an Excel .xlsx read into text
// rows by the server → columns matched to fields here, aliases renamed and unknown columns refused
// in one line (lib/importColumns) → server preview → Apply) and export (JSON 2-space / CSV with formula guard,
// relay-<category>-YYYY-MM-DD.<ext>).
import { useState } from 'react';
import { errorMessage, useToast } from '../../components/Toasts';
import { useCollection } from '../../data/store';
import { downloadText } from '../../lib/download';
import { importDuplicates } from '../../lib/duplicates';
import { mapImportColumns, unknownColumnsMessage, type ColumnRename } from '../../lib/importColumns';
import { CATEGORIES, MAX_IMPORT_BYTES, collectionOf, exportFileName, exportText, importGate, isXlsx, readImportFile, type CategoryKey, type ImportFileRead } from '../../lib/importExport';
import { plural } from '../../lib/text';
import { useTransport } from '../../transport/context';
import type { ImportReport } from '../../transport/types';
import type { Contact } from '../people/contacts';
import type { Server } from '../servers/servers';

function Overview() {
  const counts = [
    ['Contacts', useCollection('contacts').items.length],
    ['Servers', useCollection('servers').items.length],
    ['On-call rows', useCollection('oncall').items.length],
    ['Groups', useCollection('bridge_groups').items.length],
  ] as const;
  return (
    <div className="stats" data-testid="dm-overview">
      {counts.map(([l, n]) => (
        <div key={l} className="stat"><div className="stat-n">{n}</div><div className="muted small">{l}</div></div>
      ))}
    </div>
  );
}

function Import() {
  const transport = useTransport();
  const toast = useToast();
  const [cat, setCat] = useState<CategoryKey>('contacts');
  const [fileName, setFileName] = useState('');
  const [records, setRecords] = useState<Record<string, unknown>[] | null>(null);
  const [parseErrors, setParseErrors] = useState<string[]>([]);
  const [renamed, setRenamed] = useState<ColumnRename[]>([]);
  const [report, setReport] = useState<ImportReport | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const contacts = useCollection<Contact>('contacts').items;
  const servers = useCollection<Server>('servers').items;

  async function preview(recs: Record<string, unknown>[], category: CategoryKey) {
    setBusy(true);
    setError(null);
    try {
      setReport(await transport.importRecords(collectionOf(category), recs, false));
    } catch (e) {
      setError(`Preview failed: ${errorMessage(e)}`);
    } finally {
      setBusy(false);
    }
  }
  async function onFile(f: File | undefined) {
    setReport(null);
    setRecords(null);
    setParseErrors([]);
    setRenamed([]);
    setError(null);
    if (!f) return;
    setFileName(f.name);
    if (f.size > MAX_IMPORT_BYTES) return setError('The file is larger than 25 MB.');
    // Excel: the sheet named after the collection, or the only sheet; first row = headers (read by the server).
    const xlsx = isXlsx(f.name);
    if (xlsx) setBusy(true);
    let read: ImportFileRead;
    try {
      read = await readImportFile(f, cat, (file, sheet) => transport.readSpreadsheet(file, sheet));
    } finally {
      if (xlsx) setBusy(false);
    }
    if (!read.ok) return setError(read.error);
    const parsed = read.parsed;
    setParseErrors(parsed.errors);
    if (parsed.records.length === 0) return setError(parsed.errors.length ? null : 'The file has no records.');
    const matched = mapImportColumns(collectionOf(cat), parsed.records, parsed.columns);
    if (matched.unknown.length > 0) return setError(unknownColumnsMessage(matched.unknown, matched.expected));
    setRenamed(matched.renamed);
    setRecords(matched.records);
    await preview(matched.records, cat);
  }
  async function apply() {
    if (!records || !importGate(parseErrors, report, true).canApply) return;
    setBusy(true);
    try {
      const r = await transport.importRecords(collectionOf(cat), records, true);
      setReport(r);
      if (r.applied) {
        toast('success', `Imported ${r.creates} new and ${r.updates} updated ${cat}.`);
        setRecords(null);
      } else toast('error', `Import rejected: ${r.errors.length} row errors; nothing was written.`);
    } catch (e) {
      setError(`Import failed: ${errorMessage(e)}`);
    } finally {
      setBusy(false);
    }
  }
  const gate = importGate(parseErrors, report, records !== null);
  const dupes = records && (cat === 'contacts' || cat === 'servers') ? importDuplicates(cat, records, cat === 'contacts' ? contacts : servers) : null;
  const dupCount = dupes ? dupes.inFile + dupes.ambiguous : 0;
  const headers = records ? [...new Set(records.slice(0, 5).flatMap((r) => Object.keys(r)))].slice(0, 8) : [];
  return (
    <div className="form" data-testid="dm-import">
      <div className="row-wrap">
        <label className="field">
          <span className="field-label">Category</span>
          <select className="input" data-testid="import-category" value={cat} disabled={busy} onChange={(e) => { setCat(e.target.value as CategoryKey); setReport(null); setRecords(null); }}>
            {CATEGORIES.map((c) => <option key={c.key} value={c.key}>{c.label}</option>)}
          </select>
        </label>
        <label className="field">
          <span className="field-label">File (.json, .csv or .xlsx, ≤ 25 MB, ≤ 10,000 rows)</span>
          <input className="input" type="file" accept=".json,.csv,.xlsx,application/json,text/csv" data-testid="import-file" onChange={(e) => { void onFile(e.target.files?.[0]); e.target.value = ''; }} />
        </label>
      </div>
      {error && <p className="error-text" role="alert" data-testid="import-error">{error}</p>}
      {parseErrors.length > 0 && (
        <ul className="error-list" data-testid="import-parse-errors">{parseErrors.slice(0, 10).map((e) => <li key={e}>{e}</li>)}</ul>
      )}
      {busy && <p className="muted">Working…</p>}
      {report && (
        <div className="panel" data-testid="import-report" data-applied={report.applied} data-errors={gate.errorCount} data-duplicates={dupCount}>
          <p data-testid="import-summary">
            <strong>{fileName}</strong> → {report.collection}: {plural(report.total, 'row')} · <span data-testid="import-creates">{report.creates}</span> new ·{' '}
            <span data-testid="import-updates">{report.updates}</span> {report.updates === 1 ? 'update' : 'updates'} ·{' '}
            <span data-testid="import-error-count">{gate.errorCount}</span> {gate.errorCount === 1 ? 'error' : 'errors'}
            {dupes && <> · <span data-testid="import-duplicate-count">{dupCount}</span> {dupCount === 1 ? 'duplicate' : 'duplicates'}</>}
            {report.applied && <span className="pill pill-active">Applied</span>}
          </p>
          {renamed.length > 0 && (
            <p className="muted small" data-testid="import-column-map">
              Columns matched: {renamed.map((r) => `${r.from} → ${r.to}`).join(' · ')}
            </p>
          )}
          {dupes && dupCount > 0 && (
            <p className="warn-text" role="status" data-testid="import-duplicates">
              {dupes.inFile > 0 && `${plural(dupes.inFile, 'row')} ${dupes.inFile === 1 ? 'repeats' : 'repeat'} an earlier row's ${cat === 'contacts' ? 'email' : 'name'}. `}
              {dupes.ambiguous > 0 && `${plural(dupes.ambiguous, 'row')} ${dupes.ambiguous === 1 ? 'matches' : 'match'} a ${cat === 'contacts' ? 'email' : 'name'} already held by several records. `}
              ({dupes.keys.join(', ')})
            </p>
          )}
          {records && headers.length > 0 && (
            <table className="table small" data-testid="import-preview-rows">
              <thead><tr><th>#</th>{headers.map((h) => <th key={h}>{h}</th>)}</tr></thead>
              <tbody>
                {records.slice(0, 5).map((r, i) => (
                  <tr key={i}><td>{i + 1}</td>{headers.map((h) => <td key={h}>{typeof r[h] === 'object' ? JSON.stringify(r[h]) : String(r[h] ?? '')}</td>)}</tr>
                ))}
              </tbody>
            </table>
          )}
          {report.errors.length > 0 && (
            <table className="table small" data-testid="import-row-errors">
              <thead><tr><th>Row</th><th>Field</th><th>Problem</th></tr></thead>
              <tbody>
                {report.errors.slice(0, 50).map((e, i) => (
                  <tr key={i} data-testid="import-row-error"><td>{e.row}</td><td>{e.field ?? '—'}</td><td>{e.message} <span className="muted">({e.code})</span></td></tr>
                ))}
              </tbody>
            </table>
          )}
          {report.errors.length > 50 && <p className="muted">+{report.errors.length - 50} more</p>}
          {!report.applied && records && (
            <div className="row-end">
              {gate.reason && <span className="error-text" data-testid="import-blocked">{gate.reason}</span>}
              <button type="button" className="button button-primary" data-testid="import-apply" disabled={busy || !gate.canApply} onClick={apply}>
                Apply import
              </button>
            </div>
          )}
        </div>
      )}
    </div>
  );
}

function Export() {
  const transport = useTransport();
  const toast = useToast();
  const [cat, setCat] = useState<CategoryKey | 'all'>('contacts');
  const [fmt, setFmt] = useState<'json' | 'csv'>('json');
  const [busy, setBusy] = useState(false);
  async function run() {
    setBusy(true);
    try {
      const now = new Date();
      const cats = cat === 'all' ? CATEGORIES.map((c) => c.key) : [cat];
      const data: Record<string, Record<string, unknown>[]> = {};
      for (const c of cats) data[c] = await transport.getFullList<Record<string, unknown>>(collectionOf(c), { sort: 'created' });
      if (fmt === 'json') {
        downloadText(exportFileName(cat, 'json', now), cat === 'all' ? JSON.stringify(data, null, 2) : exportText(data[cat], 'json', collectionOf(cat)), 'application/json');
      } else {
        let files = 0;
        for (const c of cats) {
          if (data[c].length === 0) continue; // empty collections produce no file
          downloadText(exportFileName(c, 'csv', now), exportText(data[c], 'csv', collectionOf(c)), 'text/csv');
          files++;
        }
        if (files === 0) toast('info', 'Nothing to export.');
      }
    } catch (e) {
      toast('error', errorMessage(e));
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className="row-wrap" data-testid="dm-export">
      <select className="input" aria-label="Export category" data-testid="export-category" value={cat} onChange={(e) => setCat(e.target.value as CategoryKey)}>
        <option value="all">All</option>
        {CATEGORIES.map((c) => <option key={c.key} value={c.key}>{c.label}</option>)}
      </select>
      <select className="input" aria-label="Export format" data-testid="export-format" value={fmt} onChange={(e) => setFmt(e.target.value as 'json')}>
        <option value="json">JSON</option>
        <option value="csv">CSV</option>
      </select>
      <button type="button" className="button button-primary" data-testid="export-run" disabled={busy} onClick={run}>Export</button>
    </div>
  );
}

export function DataManager() {
  return (
    <div className="panel card" data-testid="data-manager">
      <h2>Data Manager</h2>
      <Overview />
      <h3 className="subhead">Import</h3>
      <Import />
      <h3 className="subhead">Export</h3>
      <Export />
      <p className="muted small">Alarms, dismissals, conflict log, board settings and presence are never exported.</p>
    </div>
  );
}
