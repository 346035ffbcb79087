import { describe, expect, test } from 'bun:test';
import { roomArea, roomsOf } from './RoomsEditor';

describe('房间尺寸 as a table', () => {
  test('rooms come from an array or its JSON text; anything else is none', () => {
    const text = '[{"roomName":"一层大堂","length":11000,"width":8000,"height":3600}]';
    expect(roomsOf(text)).toEqual([{ roomName: '一层大堂', length: 11000, width: 8000, height: 3600 }]);
    expect(roomsOf(JSON.parse(text))[0].roomName).toBe('一层大堂');
    expect(roomsOf('not json')).toEqual([]);
    expect(roomsOf('')).toEqual([]);
    expect(roomsOf({ roomName: 'x' })).toEqual([]);
  });
  test('a room\'s floor area in ㎡ from millimetres, two places; none until both sides are whole numbers', () => {
    expect(roomArea({ roomName: '主卧', length: 4200, width: 3600, height: 2800 })).toBe('15.12');
    expect(roomArea({ roomName: '厨房', length: '3000', width: '', height: '' })).toBe('');
    expect(roomArea({ roomName: '阳台', length: '1.5', width: 2000, height: 0 })).toBe('');
  });
});
