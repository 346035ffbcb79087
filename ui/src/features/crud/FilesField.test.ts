import { describe, expect, test } from 'bun:test';
import { filesOf } from './FilesField';

const L = (zh: string) => zh;

describe('a record\'s files', () => {
  test('pairs each link with the name the server recorded, in order', () => {
    expect(filesOf('/files/157270/aa,/files/157270/bb', '["照片.pdf","清单.txt"]', L)).toEqual([{ link: '/files/157270/aa', name: '照片.pdf' }, { link: '/files/157270/bb', name: '清单.txt' }]);
    expect(filesOf('/files/1/aa', ['图纸.dwg'], L)).toEqual([{ link: '/files/1/aa', name: '图纸.dwg' }]);
  });
  test('numbers them without names, and shows nothing without links', () => {
    expect(filesOf(' /files/1/abc , /files/1/def', 'not json', L)).toEqual([{ link: '/files/1/abc', name: '附件 1' }, { link: '/files/1/def', name: '附件 2' }]);
    expect(filesOf('', '["x"]', L)).toEqual([]);
    expect(filesOf(undefined, undefined, L)).toEqual([]);
  });
});
