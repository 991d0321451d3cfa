// Saves text or a blob as a file from the browser: a temporary object URL clicked through a hidden
// link (revoked after 10 s). Used by the Data Manager's export, the Servers sync backup and the
// alert card's Save PNG.
export function downloadText(name: string, text: string, type: string): void {
  downloadBlob(name, new Blob([text], { type }));
}

export function downloadBlob(name: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
