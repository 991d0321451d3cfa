// Builds real Excel .xlsx workbooks for the e2e tests: the minimal valid SpreadsheetML package
// ([Content_Types].xml, _rels/.rels, xl/workbook.xml, xl/_rels/workbook.xml.rels and one
// xl/worksheets/sheetN.xml per sheet), zipped with fflate. Text cells are inline strings
// (t="inlineStr"), numbers plain <v> cells, null/undefined/'' leave the cell out; a row that is
// null is left out entirely (a blank row in the sheet).
import { strToU8, zipSync } from 'fflate';

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';
const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

const escape = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** 0-based column index → letters (0 → A, 26 → AA). */
function column(i) {
  let n = i + 1;
  let out = '';
  while (n > 0) {
    out = String.fromCharCode(65 + ((n - 1) % 26)) + out;
    n = Math.floor((n - 1) / 26);
  }
  return out;
}

function cell(value, ref) {
  if (value === null || value === undefined || value === '') return '';
  if (typeof value === 'number') return `<c r="${ref}"><v>${value}</v></c>`;
  return `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${escape(value)}</t></is></c>`;
}

function worksheet(rows) {
  const body = rows
    .map((row, r) => (row ? `<row r="${r + 1}">${row.map((v, c) => cell(v, `${column(c)}${r + 1}`)).join('')}</row>` : ''))
    .join('');
  return `${XML_HEAD}<worksheet xmlns="${MAIN}"><sheetData>${body}</sheetData></worksheet>`;
}

/**
 * The bytes of an .xlsx workbook holding `sheets` in order: [{ name, rows }] where rows is an
 * array of arrays of cell values (the first row is the header).
 */
export function xlsxWorkbook(sheets) {
  const parts = sheets.map((s, i) => ({ ...s, file: `sheet${i + 1}.xml`, rid: `rId${i + 1}` }));
  const files = {
    '[Content_Types].xml': `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">`
      + '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
      + '<Default Extension="xml" ContentType="application/xml"/>'
      + '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
      + parts.map((p) => `<Override PartName="/xl/worksheets/${p.file}" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`).join('')
      + '</Types>',
    '_rels/.rels': `${XML_HEAD}<Relationships xmlns="${PKG_REL}">`
      + `<Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml': `${XML_HEAD}<workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets>`
      + parts.map((p, i) => `<sheet name="${escape(p.name)}" sheetId="${i + 1}" r:id="${p.rid}"/>`).join('')
      + '</sheets></workbook>',
    'xl/_rels/workbook.xml.rels': `${XML_HEAD}<Relationships xmlns="${PKG_REL}">`
      + parts.map((p) => `<Relationship Id="${p.rid}" Type="${REL}/worksheet" Target="worksheets/${p.file}"/>`).join('')
      + '</Relationships>',
  };
  for (const p of parts) files[`xl/worksheets/${p.file}`] = worksheet(p.rows);
  return zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, strToU8(v)])));
}
