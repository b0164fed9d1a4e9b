import { describe, expect, it } from 'vitest';

import { asset, detail, hop, missionEvent, toolStep } from '../../test/missions';
import { describeMissionEvent, entityNames } from './history';

describe('mission events in words', () => {
  const names = entityNames(
    detail(
      [hop('h', [toolStep('s', { name: 'Search papers' })], { name: 'Gather' })],
      [asset('a', { name: 'Report' })],
    ),
  );

  it('names the entity of a transition and gives the reason', () => {
    const rejected = missionEvent({
      kind: 'hop_transitioned',
      entityType: 'hop',
      entityId: 'h',
      fromState: 'PLAN_PROPOSED',
      toState: 'CANCELLED',
      data: { reason: 'too broad' },
    });
    expect(describeMissionEvent(rejected, names)).toBe('hop 1 “Gather” plan proposed → cancelled: too broad');
  });

  it('describes the domain’s own kinds', () => {
    const say = (over: Parameters<typeof missionEvent>[0]) => describeMissionEvent(missionEvent(over), names);
    expect(say({ kind: 'mission_proposed', data: { title: 'Cold' } })).toBe('mission proposed: “Cold”');
    expect(say({ kind: 'hop_proposed', entityType: 'hop', entityId: 'h', data: { isFinal: true } })).toBe(
      'hop 1 “Gather” proposed as the final hop',
    );
    expect(
      say({ kind: 'hop_implementation_proposed', entityType: 'hop', entityId: 'h', data: { toolStepIds: ['s'] } }),
    ).toBe('implementation of hop 1 “Gather” proposed with 1 tool step');
    expect(say({ kind: 'tool_step_completed', entityType: 'tool_step', entityId: 's' })).toBe(
      'tool step “Search papers” completed',
    );
    expect(say({ kind: 'asset_expired', entityType: 'asset', entityId: 'a' })).toBe(
      'asset “Report” expired: its TTL ran out',
    );
    expect(say({ kind: 'mission_rejected', data: { reason: 'out of scope' } })).toBe('mission rejected: out of scope');
  });

  it('falls back to the entity type for an entity the snapshot does not know', () => {
    expect(
      describeMissionEvent(
        missionEvent({ kind: 'tool_step_failed', entityType: 'tool_step', entityId: '?' }),
        new Map(),
      ),
    ).toBe('tool step failed');
  });
});
