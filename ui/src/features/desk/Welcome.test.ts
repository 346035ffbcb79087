import { describe, expect, test } from 'bun:test';
import { approvalRows } from './Welcome';

describe('the desk approval figures', () => {
  test('待办 counts only what is assigned; what is to claim is 待签, each opening its own list', () => {
    const rows = approvalRows({ todo: 0, claim: 2, done: 1, send: 3 });
    expect(rows.map((r) => [r.key, r.n, r.to])).toEqual([
      ['desk.approval.todo', 0, '/work/todo'],
      ['desk.approval.claim', 2, '/work/claim'],
      ['desk.approval.done', 1, '/work/done'],
      ['desk.approval.sent', 3, '/work/send'],
    ]);
  });
});
