import { describe, expect, test } from 'bun:test';
import { attachmentsOf } from './WorkOrders';

describe('a reply\'s attachments', () => {
  test('pairs each link with the name the server recorded, in order', () => {
    const r = { attachments: '/files/157270/aa,/files/157270/bb', attachNames: '["照片.pdf","清单.txt"]' };
    expect(attachmentsOf(r)).toEqual([{ link: '/files/157270/aa', name: '照片.pdf' }, { link: '/files/157270/bb', name: '清单.txt' }]);
  });
  test('falls back to the link\'s last part without names, and shows nothing without links', () => {
    expect(attachmentsOf({ attachments: ' /files/1/abc , ', attachNames: 'not json' })).toEqual([{ link: '/files/1/abc', name: 'abc' }]);
    expect(attachmentsOf({ attachments: '', attachNames: '["x"]' })).toEqual([]);
    expect(attachmentsOf({})).toEqual([]);
  });
});
