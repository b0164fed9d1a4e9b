import { describe, expect, it } from 'vitest';

import { asset, detail, hop, statuses, summary, toolStep } from '../../test/missions';
import { describeCounts, missionCounts, stateCounts } from './store';

describe('counts', () => {
  it('counts hops, the current hop’s tool steps and assets by state', () => {
    const mission = summary('1', {
      currentHop: {
        id: 'h2',
        sequence: 2,
        name: 'Write',
        status: 'EXECUTING',
        isFinal: true,
        toolSteps: statuses('COMPLETED', 'EXECUTING', 'EXECUTING'),
      },
      hops: statuses('COMPLETED', 'EXECUTING'),
      assets: statuses('READY', 'EXPIRED', 'PROPOSED'),
    });
    const counts = missionCounts(mission);
    expect(counts).toEqual({
      hops: 2,
      hopsCompleted: 1,
      steps: 3,
      stepsCompleted: 1,
      assets: 3,
      assetsReady: 1,
      assetsExpired: 1,
    });
    expect(describeCounts(counts)).toBe(
      '1 of 2 hops completed · 1 of 3 tool steps done · 3 assets (1 ready, 1 expired)',
    );
  });

  it('says so when there is nothing yet', () => {
    expect(describeCounts(missionCounts(summary('1')))).toBe('no hops yet');
    expect(
      describeCounts(missionCounts(summary('1', { hops: statuses('PLAN_PROPOSED'), assets: statuses('PROPOSED') }))),
    ).toBe('0 of 1 hop completed · 1 asset');
  });

  it('tallies every entity per machine for the diagrams, cancelled tool steps included', () => {
    const mission = detail(
      [
        hop('h1', [toolStep('a', { status: 'CANCELLED' }), toolStep('b', { status: 'COMPLETED' })], {
          status: 'COMPLETED',
        }),
        hop('h2', [toolStep('c', { status: 'EXECUTING' })], { status: 'EXECUTING' }),
      ],
      [asset('x', { status: 'EXPIRED' })],
    );
    expect(stateCounts(mission)).toEqual({
      mission: { EXECUTING_HOP: 1 },
      hop: { COMPLETED: 1, EXECUTING: 1 },
      tool_step: { CANCELLED: 1, COMPLETED: 1, EXECUTING: 1 },
      asset: { EXPIRED: 1 },
    });
  });
});
