import { describe, expect, test } from 'bun:test';
import { narrowOf, narrowedBy, withinOf } from './resource';

describe('ui.within: a picker narrowed by another choice', () => {
  test('the three forms of the declaration', () => {
    expect(withinOf({ ui: { within: 'projectId' } })).toEqual([['projectId', 'projectId']]);
    expect(withinOf({ ui: { within: ['storeId', 'areaId'] } })).toEqual([['storeId', 'storeId'], ['areaId', 'areaId']]);
    expect(withinOf({ ui: { within: { toStoreId: 'storeId' } } })).toEqual([['toStoreId', 'storeId']]);
    expect(withinOf({ ui: null })).toEqual([]);
    expect(withinOf({})).toEqual([]);
  });
  test('narrowed by what is chosen so far, under the picked resource\'s field', () => {
    const space = { ui: { within: ['storeId', 'areaId'] } };
    expect(narrowOf(space, (n) => ({ storeId: '7', areaId: '' } as Record<string, string>)[n])).toEqual({ storeId: '7' });
    expect(narrowOf({ ui: { within: { toStoreId: 'storeId' } } }, (n) => (n === 'toStoreId' ? 9 : undefined))).toEqual({ storeId: '9' });
    expect(narrowOf(space, () => undefined)).toEqual({});
    // And by the kind of record the field takes, whatever is chosen (a 供应商 among suppliers, not carriers).
    expect(narrowOf({ ui: { pickWhere: { partyType: 1 } } }, () => undefined)).toEqual({ partyType: '1' });
  });
  test('a change of a choice names the boxes it narrows', () => {
    const fields = [{ name: 'storeId' }, { name: 'areaId', ui: { within: 'storeId' } }, { name: 'spaceId', ui: { within: ['storeId', 'areaId'] } }];
    expect(narrowedBy(fields, 'storeId')).toEqual(['areaId', 'spaceId']);
    expect(narrowedBy(fields, 'areaId')).toEqual(['spaceId']);
    expect(narrowedBy(fields, 'spaceId')).toEqual([]);
  });
});
