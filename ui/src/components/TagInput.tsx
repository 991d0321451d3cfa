// A chip input for a record's tags: each tag is a chip with its own remove button; typing then
// Enter or a comma adds the typed text as a chip (lowercased, repeats dropped, lib/notes
// parseTags), Backspace in the empty box removes the last chip. The server's limits hold: at
// most MAX_TAGS tags of MAX_TAG_LEN characters. The typed-but-not-added text (`draft`) is the
// parent's, so its Save can add it too (addTags).
import { useId, type KeyboardEvent } from 'react';
import { MAX_TAGS, MAX_TAG_LEN, addTags } from '../lib/notes';

export interface TagInputProps {
  tags: readonly string[];
  draft: string;
  onTagsChange(tags: string[]): void;
  onDraftChange(draft: string): void;
  testId?: string;
}

export function TagInput({ tags, draft, onTagsChange, onDraftChange, testId = 'tag-input' }: TagInputProps) {
  const id = useId();
  const full = tags.length >= MAX_TAGS;
  function commit(text: string, rest = '') {
    onTagsChange(addTags(tags, text));
    onDraftChange(rest);
  }
  function onChange(value: string) {
    const cut = value.lastIndexOf(',');
    if (cut < 0) return onDraftChange(value);
    commit(value.slice(0, cut), value.slice(cut + 1).trimStart());
  }
  function onKeyDown(e: KeyboardEvent<HTMLInputElement>) {
    if (e.key === 'Enter' && !e.metaKey && !e.ctrlKey && draft.trim()) {
      e.preventDefault();
      commit(draft);
    } else if (e.key === 'Backspace' && draft === '' && tags.length > 0) {
      e.preventDefault();
      onTagsChange(tags.slice(0, -1));
    }
  }
  return (
    <div className="field">
      <label className="field-label" htmlFor={`${id}-input`}>Tags</label>
      <div className="tag-input">
        {tags.length > 0 && (
          <ul className="tag-chips" aria-label="Tags added">
            {tags.map((t) => (
              <li key={t} className="tag-chip" data-testid={`${testId}-chip`}>
                <span>#{t}</span>
                <button type="button" className="tag-chip-remove" aria-label={`Remove tag ${t}`} onClick={() => onTagsChange(tags.filter((x) => x !== t))}>×</button>
              </li>
            ))}
          </ul>
        )}
        <input
          id={`${id}-input`}
          className="input tag-input-box"
          data-testid={testId}
          aria-describedby={`${id}-hint`}
          placeholder={full ? '' : 'Add a tag'}
          value={draft}
          onChange={(e) => onChange(e.target.value)}
          onKeyDown={onKeyDown}
        />
      </div>
      <span className="muted small" id={`${id}-hint`} aria-live="polite">
        {full ? `${MAX_TAGS} tags is the most a note can have.` : `Enter or comma adds a tag (up to ${MAX_TAGS}, ${MAX_TAG_LEN} characters each); Backspace removes the last.`}
      </span>
    </div>
  );
}
