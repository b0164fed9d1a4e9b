import { describe, expect, it } from 'vitest';

import { step } from '../../test/workflows';
import { MAX_WORKFLOW_STEPS, readAllSteps, type StepPage } from './allSteps';

function pages(count: number, size: number): StepPage[] {
  return Array.from({ length: count }, (_, p) => ({
    steps: Array.from({ length: size }, (_, i) => step(`s${p * size + i}`)),
    hasNext: p < count - 1,
    endCursor: `c${p}`,
  }));
}

describe('every step of a workflow, page after page', () => {
  it('reads the pages after the first until the last says there is no more', async () => {
    const [first, ...rest] = pages(2, 100);
    const asked: string[] = [];
    const steps = await readAllSteps(first!, 200, async (after) => {
      asked.push(after);
      return rest.shift() ?? null;
    });
    expect(steps).toHaveLength(200);
    expect(steps.at(-1)?.name).toBe('s199');
    expect(asked).toEqual(['c0']);
  });

  it('reads nothing more when the snapshot holds every step', async () => {
    const [only] = pages(1, 8);
    const steps = await readAllSteps(only!, 8, () => Promise.reject(new Error('not asked')));
    expect(steps).toHaveLength(8);
  });

  it('stops at the count, at the largest workflow a server allows, and when a read answers nothing', async () => {
    const endless = (size: number) => async (): Promise<StepPage> => ({
      steps: Array.from({ length: size }, (_, i) => step(`x${i}`)),
      hasNext: true,
      endCursor: 'again',
    });
    const first = { steps: [step('a')], hasNext: true, endCursor: 'c' };
    expect(await readAllSteps(first, 250, endless(100))).toHaveLength(250);
    expect(await readAllSteps(first, 10 ** 9, endless(100))).toHaveLength(MAX_WORKFLOW_STEPS);
    expect(await readAllSteps(first, 300, async () => null)).toHaveLength(1);
    expect(await readAllSteps(first, 300, endless(0))).toHaveLength(1);
  });
});
