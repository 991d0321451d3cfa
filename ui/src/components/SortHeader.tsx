// Column headers for a sortable list: one header row (role=table/row/columnheader so aria-sort
// is announced) whose buttons sort by that column; a second click reverses it (lib/directory).
import { ariaSort, nextSort, type SortState } from '../lib/directory';

export function SortHeader<K extends string>({
  label,
  columns,
  sort,
  onSort,
}: {
  label: string;
  columns: readonly { key: K; label: string }[];
  sort: SortState<K> | null;
  onSort: (next: SortState<K>) => void;
}) {
  return (
    <div role="table" aria-label={label} className="sort-head" data-testid="sort-head">
      <div role="row" className="sort-head-row">
        {columns.map((c) => {
          const state = ariaSort(sort, c.key);
          return (
            <div role="columnheader" key={c.key} aria-sort={state} className="sort-col">
              <button type="button" className="sort-btn" data-testid={`sort-${c.key}`} onClick={() => onSort(nextSort(sort, c.key))}>
                {c.label}
                <span aria-hidden="true" className="sort-arrow">{state === 'ascending' ? ' ▲' : state === 'descending' ? ' ▼' : ''}</span>
              </button>
            </div>
          );
        })}
      </div>
    </div>
  );
}
