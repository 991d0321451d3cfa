// A small, valid PDF written byte by byte for the Wiki browser tests (wiki, web-protected):
// Helvetica text pages with correct xref offsets and an optional outline.

/** A PDF with one Helvetica text page per entry of `pages` and an outline (title → page index). */
export function buildPdf(pages, outline = []) {
  const objects = [];
  const add = (body) => objects.push(body) && objects.length;
  const catalog = add('');
  const tree = add('');
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const esc = (s) => s.replace(/[\\()]/g, (c) => `\\${c}`);
  const pageIds = pages.map((lines) => {
    const content = `BT /F1 14 Tf 72 720 Td 18 TL\n${lines.map((l) => `(${esc(l)}) Tj T*`).join('\n')}\nET\n`;
    const stream = add(`<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`);
    return add(`<< /Type /Page /Parent ${tree} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${stream} 0 R >>`);
  });
  objects[tree - 1] = `<< /Type /Pages /Kids [${pageIds.map((p) => `${p} 0 R`).join(' ')}] /Count ${pageIds.length} >>`;
  let outlines = '';
  if (outline.length) {
    const root = add('');
    const first = objects.length + 1;
    outline.forEach(([title, index], i) => {
      const links = [i > 0 ? `/Prev ${first + i - 1} 0 R` : '', i < outline.length - 1 ? `/Next ${first + i + 1} 0 R` : ''].join(' ');
      add(`<< /Title (${esc(title)}) /Parent ${root} 0 R ${links} /Dest [${pageIds[index]} 0 R /Fit] >>`);
    });
    objects[root - 1] = `<< /Type /Outlines /First ${first} 0 R /Last ${first + outline.length - 1} 0 R /Count ${outline.length} >>`;
    outlines = ` /Outlines ${root} 0 R`;
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${tree} 0 R${outlines} >>`;
  let out = '%PDF-1.7\n%\xE2\xE3\xCF\xD3\n';
  const offsets = objects.map((body, i) => {
    const at = Buffer.byteLength(out, 'latin1');
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return at;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
