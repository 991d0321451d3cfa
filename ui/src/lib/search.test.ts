import { describe, expect, it } from 'vitest';
import { matchScore, rankSearch, type SearchItem } from './search';

const c = (id: string, name: string, email = ''): SearchItem => ({ kind: 'contact', id, label: name, fields: [name, email] });

describe('search ranking', () => {
  it('scores exact < prefix < word prefix < substring, primary field first', () => {
    expect(matchScore('ann', ['Ann'])).toBeLessThan(matchScore('ann', ['Anna'])!);
    expect(matchScore('ann', ['Anna'])).toBeLessThan(matchScore('ann', ['Mary Ann Lee'])!);
    expect(matchScore('ann', ['Mary Ann Lee'])).toBeLessThan(matchScore('ann', ['Joanne'])!);
    expect(matchScore('ann', ['x', 'ann'])).toBeGreaterThan(matchScore('ann', ['ann'])!);
    expect(matchScore('zzz', ['Ann'])).toBeNull();
  });
  it('orders results and caps them at 15', () => {
    const items = [c('1', 'Joanne'), c('2', 'Ann'), c('3', 'Bob', 'ann@x.com'), c('4', 'Anna')];
    expect(rankSearch('ann', items).map((x) => x.id)).toEqual(['2', '4', '3', '1']);
    const many = Array.from({ length: 100 }, (_, i) => c(String(i), `Person ${i}`));
    expect(rankSearch('person', many)).toHaveLength(15);
    expect(rankSearch('   ', many)).toEqual([]);
  });
  it('puts groups before contacts at equal score', () => {
    const items: SearchItem[] = [c('1', 'NOC'), { kind: 'group', id: 'g', label: 'NOC', fields: ['NOC'] }];
    expect(rankSearch('noc', items)[0].kind).toBe('group');
  });
});
