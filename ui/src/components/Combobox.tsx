// A text input with a list of suggestions (the ARIA 1.2 combobox pattern, list autocomplete): the
// input is role=combobox with aria-expanded, aria-controls and aria-activedescendant; the list is
// role=listbox of role=option. Typing opens the list; ArrowDown/ArrowUp move through it (opening
// it when closed), Enter picks the active option (with none active, the caller's onEnter runs:
// e.g. "add what was typed"), Esc closes the list (and only the list: the
// dialog around it stays open), Tab and leaving the field close it. A pointer pick works too. The
// caller owns the text and the options; a pick hands over the option itself, so the caller acts
// on its id, never on its label.
import { useId, useState } from 'react';

export interface ComboOption {
  id: string;
  label: string;
  detail?: string;
}

export function Combobox({ value, onChange, options, onPick, label, testId, listTestId, onBlur, onEnter, describedBy, invalid, placeholder }: {
  value: string;
  onChange: (text: string) => void;
  options: readonly ComboOption[];
  onPick: (option: ComboOption) => void;
  /** The input's accessible name. */
  label: string;
  testId?: string;
  /** The listbox's test id (default: `${testId}-options`). */
  listTestId?: string;
  onBlur?: () => void;
  /** Enter with no option active. */
  onEnter?: () => void;
  describedBy?: string;
  invalid?: boolean;
  placeholder?: string;
}) {
  const listId = useId();
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const shown = open && options.length > 0;
  const activeOption = shown && active >= 0 && active < options.length ? options[active] : null;
  const optionId = (i: number) => `${listId}-opt-${i}`;

  function pick(o: ComboOption) {
    setOpen(false);
    setActive(-1);
    onPick(o);
  }

  return (
    <div className="combobox">
      <input
        className="input"
        role="combobox"
        aria-label={label}
        aria-autocomplete="list"
        aria-expanded={shown}
        aria-controls={shown ? listId : undefined}
        aria-activedescendant={activeOption ? optionId(active) : undefined}
        aria-describedby={describedBy}
        aria-invalid={invalid || undefined}
        autoComplete="off"
        placeholder={placeholder}
        data-testid={testId}
        value={value}
        onChange={(e) => {
          onChange(e.target.value);
          setOpen(true);
          setActive(-1);
        }}
        onBlur={() => {
          setOpen(false);
          setActive(-1);
          onBlur?.();
        }}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
            if (options.length === 0) return;
            e.preventDefault();
            const down = e.key === 'ArrowDown';
            if (!shown) {
              setOpen(true);
              setActive(down ? 0 : options.length - 1);
              return;
            }
            setActive((i) => (down ? (i + 1) % options.length : i <= 0 ? options.length - 1 : i - 1));
          } else if (e.key === 'Enter' && activeOption) {
            e.preventDefault();
            pick(activeOption);
          } else if (e.key === 'Enter' && onEnter) {
            e.preventDefault();
            onEnter();
          } else if (e.key === 'Escape' && shown) {
            // Closes the list only: the shell's Esc (close the dialog) sees a handled key.
            e.preventDefault();
            e.stopPropagation();
            setOpen(false);
            setActive(-1);
          } else if (e.key === 'Tab') {
            setOpen(false);
          }
        }}
      />
      {shown && (
        <ul id={listId} className="search-results combobox-list" role="listbox" aria-label={`${label} suggestions`} data-testid={listTestId ?? (testId ? `${testId}-options` : undefined)}>
          {options.map((o, i) => (
            <li key={o.id} id={optionId(i)} role="option" aria-selected={i === active} className={i === active ? 'search-item search-item-sel' : 'search-item'}
              data-testid={testId ? `${testId}-option` : undefined}
              onMouseDown={(e) => {
                e.preventDefault(); // keeps focus in the input
                pick(o);
              }}>
              <span className="search-label">{o.label}</span>
              {o.detail && <span className="muted search-detail">{o.detail}</span>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
