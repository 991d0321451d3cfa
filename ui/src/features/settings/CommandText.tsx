// Text with `backquoted` commands (the ./serverPlace messages): each command is shown as <code>,
// the rest as plain text; nothing is ever parsed as HTML.
export function CommandText({ text }: { text: string }) {
  return (
    <>
      {text.split('`').map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : part))}
    </>
  );
}
