import { describe, expect, it } from 'vitest';

import { changedRootIds, type LoggedEvent } from './events';

const at = (rootId: string, seq: number): LoggedEvent => ({
  seq,
  kind: 'step_transitioned',
  entityType: 'step',
  entityId: 's',
  rootType: 'plan',
  rootId,
  fromState: null,
  toState: null,
  actor: 'agent',
  data: null,
  createdAt: '2026-01-01T00:00:00Z',
});

describe('changedRootIds', () => {
  it('names each changed root once, in order of first mention', () => {
    expect(changedRootIds([at('a', 1), at('b', 2), at('a', 3)])).toEqual(['a', 'b']);
  });
});
