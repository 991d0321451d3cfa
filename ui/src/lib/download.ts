// Saves text as a file from the browser: a temporary object URL clicked through a hidden link
// (revoked after 10 s). Used by the Data Manager's export and the Servers sync backup.
export function downloadText(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
