import { describe, expect, it } from 'vitest';

import { layoutMachine, rankStates, type MachineData } from './diagramLayout';

// The plan machine as the stateMachines query returns it (seed 000).
const PLAN: MachineData = {
  domain: 'research plans',
  entity: 'plan',
  description: '',
  initial: 'planning',
  states: ['planning', 'executing', 'awaiting_review', 'stalled', 'completed', 'failed'].map((name) => ({
    name,
    initial: name === 'planning',
    final: name === 'completed' || name === 'failed',
  })),
  transitions: [
    ['planning', 'executing'],
    ['planning', 'failed'],
    ['executing', 'awaiting_review'],
    ['executing', 'completed'],
    ['executing', 'failed'],
    ['executing', 'stalled'],
    ['awaiting_review', 'executing'],
    ['awaiting_review', 'failed'],
    ['stalled', 'executing'],
    ['stalled', 'failed'],
  ].map(([from, to]) => ({ from: from as string, to: to as string })),
};

describe('layoutMachine', () => {
  it('ranks states by their distance from the initial state', () => {
    expect(Object.fromEntries(rankStates(PLAN))).toEqual({
      planning: 0,
      executing: 1,
      failed: 1,
      awaiting_review: 2,
      completed: 2,
      stalled: 2,
    });
  });

  it('places every state once, in its rank column, without overlaps', () => {
    const layout = layoutMachine(PLAN);
    expect(layout.nodes.map((n) => n.name).sort()).toEqual(PLAN.states.map((s) => s.name).sort());
    const x = (name: string) => layout.nodes.find((n) => n.name === name)?.x;
    expect(x('planning')).toBeLessThan(x('executing') as number);
    expect(x('executing')).toBe(x('failed'));
    for (const a of layout.nodes) {
      for (const b of layout.nodes) {
        if (a === b) continue;
        const apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
        expect(apart, `${a.name} overlaps ${b.name}`).toBe(true);
      }
      expect(a.x + a.width).toBeLessThanOrEqual(layout.width);
      expect(a.y + a.height).toBeLessThanOrEqual(layout.height);
    }
  });

  it('draws one path per transition, whatever the machine', () => {
    const layout = layoutMachine(PLAN);
    expect(layout.edges.map((e) => `${e.from}>${e.to}`)).toEqual(PLAN.transitions.map((t) => `${t.from}>${t.to}`));
    expect(layout.edges.every((e) => /^M[\d.]+,[\d.]+ C/.test(e.d))).toBe(true);
  });

  it('still lays out states the initial state cannot reach, in a last column', () => {
    const odd: MachineData = {
      ...PLAN,
      states: [...PLAN.states, { name: 'orphan', initial: false, final: true }],
    };
    const layout = layoutMachine(odd);
    const orphan = layout.nodes.find((n) => n.name === 'orphan');
    expect(orphan?.x).toBe(Math.max(...layout.nodes.map((n) => n.x)));
  });
});
