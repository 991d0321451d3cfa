// A file size as an operator reads it, honestly: bytes below 1 KB are bytes ("9 B", never
// "1 KB"), then KB, MB and GB (1024-based, as the browser and the server count them) with one
// decimal below ten and whole numbers from ten up ("1.5 KB", "830 KB", "5.3 MB", "12 MB").

const UNITS = ['KB', 'MB', 'GB', 'TB'] as const;

/** "9 B", "1.5 KB", "830 KB", "5.3 MB", "12 MB"; "—" for a size that is not a finite number of bytes. */
export function formatFileSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  if (bytes < 1024) return `${Math.round(bytes)} B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  // 1023.96 KB would round to "1024 KB": say the next unit instead.
  if (Math.round(value) >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const shown = value < 9.95 ? value.toFixed(1).replace(/\.0$/, '') : String(Math.round(value));
  return `${shown} ${UNITS[unit]}`;
}
