import { describe, expect, test } from 'bun:test';
import { rejectEdges, type Definition } from './Diagram';

describe('the process diagram', () => {
  test('a step that goes back on rejection draws that way (a leave\'s 调整申请 looked unreachable)', () => {
    const def: Definition = {
      nodes: [{ id: 's', type: 'start' }, { id: 'leader', type: 'task', rejectTo: 'adjust' }, { id: 'adjust', type: 'task' }, { id: 'boss', type: 'task', rejectTo: 'gone' }, { id: 'e', type: 'end' }],
      flows: [{ id: 'f1', from: 's', to: 'leader' }, { id: 'f2', from: 'leader', to: 'e' }, { id: 'f3', from: 'adjust', to: 'leader' }],
    };
    expect(rejectEdges(def)).toEqual([{ id: 'reject-leader', from: 'leader', to: 'adjust', name: '驳回', reject: true }]);
  });
});
