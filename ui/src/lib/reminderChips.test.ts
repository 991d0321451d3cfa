import { describe, expect, it } from 'vitest';
import { activeChips } from './reminderChips';

describe('on-call reminder chips', () => {
  const wed = new Date(2026, 11, 9, 9); // Wednesday
  it('shows the chip for the weekday until dismissed today', () => {
    expect(activeChips(wed, [], '2026-12-09').map((c) => c.label)).toEqual(['Update SQL DBA']);
    expect(activeChips(wed, [{ alertType: 'sql-dba', dateKey: '2026-12-09' }], '2026-12-09')).toEqual([]);
    expect(activeChips(wed, [{ alertType: 'sql-dba', dateKey: '2026-12-02' }], '2026-12-09')).toHaveLength(1);
    expect(activeChips(new Date(2026, 11, 8, 9), [], '2026-12-08')).toEqual([]); // Tuesday: none
  });
});
