import { describe, expect, it } from 'vitest';

import { DAG_NODE_MIN_W, DAG_NODE_W, layoutDag, stepDepths, type DagStep } from './dagLayout';

// Seed 002 §5.1: a, then b and c in parallel, then d waiting for both.
const DIAMOND: DagStep[] = [
  { name: 'step-a', dependsOn: [] },
  { name: 'step-b', dependsOn: ['step-a'] },
  { name: 'step-c', dependsOn: ['step-a'] },
  { name: 'step-d', dependsOn: ['step-b', 'step-c'] },
];

function node(layout: ReturnType<typeof layoutDag>, name: string) {
  const found = layout.nodes.find((n) => n.name === name);
  if (!found) throw new Error(`${name} not laid out`);
  return found;
}

describe('stepDepths', () => {
  it('puts each step one column after its deepest dependency', () => {
    const steps = [...DIAMOND, { name: 'late', dependsOn: ['step-a', 'step-d'] }];
    expect(Object.fromEntries(stepDepths(steps))).toEqual({
      'step-a': 0,
      'step-b': 1,
      'step-c': 1,
      'step-d': 2,
      late: 3,
    });
  });

  it('ignores unknown dependencies and survives a cycle', () => {
    expect(Object.fromEntries(stepDepths([{ name: 'x', dependsOn: ['ghost'] }]))).toEqual({ x: 0 });
    const cycle = stepDepths([
      { name: 'p', dependsOn: ['q'] },
      { name: 'q', dependsOn: ['p'] },
    ]);
    expect([...cycle.keys()].sort()).toEqual(['p', 'q']);
  });
});

describe('layoutDag', () => {
  it('lays the diamond out left to right by depth, the parallel steps one above the other', () => {
    const layout = layoutDag(DIAMOND);
    const [a, b, c, d] = DIAMOND.map((s) => node(layout, s.name));
    expect(a!.x).toBeLessThan(b!.x);
    expect(b!.x).toBe(c!.x);
    expect(c!.x).toBeLessThan(d!.x);
    expect(b!.y).toBeLessThan(c!.y);
    // a and d sit level with the middle of b and c, so the edges fan out evenly.
    expect(a!.y + a!.height / 2).toBeCloseTo((b!.y + c!.y + c!.height) / 2);
    expect(d!.y).toBe(a!.y);
  });

  it('keeps every node inside the drawing and apart from every other', () => {
    const steps: DagStep[] = [
      ...DIAMOND,
      { name: 'root-2', dependsOn: [] },
      { name: 'after-root-2', dependsOn: ['root-2'] },
      { name: 'join', dependsOn: ['after-root-2', 'step-d'] },
    ];
    const layout = layoutDag(steps);
    expect(layout.nodes).toHaveLength(steps.length);
    for (const a of layout.nodes) {
      expect(a.x).toBeGreaterThanOrEqual(0);
      expect(a.y).toBeGreaterThanOrEqual(0);
      expect(a.x + a.width).toBeLessThanOrEqual(layout.width);
      expect(a.y + a.height).toBeLessThanOrEqual(layout.height);
      for (const b of layout.nodes) {
        if (a === b) continue;
        const apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
        expect(apart, `${a.name} overlaps ${b.name}`).toBe(true);
      }
    }
  });

  it('places a step next to the steps it depends on', () => {
    const layout = layoutDag([
      { name: 'top', dependsOn: [] },
      { name: 'bottom', dependsOn: [] },
      { name: 'after-bottom', dependsOn: ['bottom'] },
      { name: 'after-top', dependsOn: ['top'] },
    ]);
    expect(node(layout, 'after-top').y).toBe(node(layout, 'top').y);
    expect(node(layout, 'after-bottom').y).toBe(node(layout, 'bottom').y);
  });

  it('draws one edge per dependency, from the right of the dependency to the left of the step', () => {
    const layout = layoutDag(DIAMOND);
    expect(layout.edges.map((e) => `${e.from}>${e.to}`)).toEqual([
      'step-a>step-b',
      'step-a>step-c',
      'step-b>step-d',
      'step-c>step-d',
    ]);
    const a = node(layout, 'step-a');
    const b = node(layout, 'step-b');
    const first = layout.edges[0]!.d;
    expect(first.startsWith(`M${a.x + a.width},${a.y + a.height / 2} C`)).toBe(true);
    expect(first.endsWith(` ${b.x},${b.y + b.height / 2}`)).toBe(true);
  });

  it('lays out independent roots (seed 002 §4.3) in one column', () => {
    const layout = layoutDag(['a', 'b', 'c', 'd'].map((name) => ({ name, dependsOn: [] })));
    expect(new Set(layout.nodes.map((n) => n.x)).size).toBe(1);
    expect(layout.edges).toEqual([]);
  });

  it('narrows the nodes to fit the frame, down to a minimum below which the frame scrolls', () => {
    const chain = ['a', 'b', 'c', 'd', 'e'].map((name, i, all) => ({ name, dependsOn: i ? [all[i - 1] as string] : [] }));
    expect(layoutDag(chain).nodes[0]?.width).toBe(DAG_NODE_W);
    const fitted = layoutDag(chain, 1190);
    expect(fitted.width).toBeLessThanOrEqual(1190);
    expect(fitted.nodes[0]?.width).toBeLessThan(DAG_NODE_W);
    const phone = layoutDag(chain, 360);
    expect(phone.nodes.every((n) => n.width === DAG_NODE_MIN_W)).toBe(true);
    expect(phone.width).toBeGreaterThan(360);
  });

  it('sends an edge that skips a column over the top instead of behind the step in between', () => {
    // package depends on build directly and through test: build -> package would run behind test.
    const layout = layoutDag([
      { name: 'build', dependsOn: [] },
      { name: 'test', dependsOn: ['build'] },
      { name: 'package', dependsOn: ['build', 'test'] },
    ]);
    const skip = layout.edges.find((e) => e.from === 'build' && e.to === 'package');
    const direct = layout.edges.find((e) => e.from === 'build' && e.to === 'test');
    expect(direct?.d).toMatch(/^M[\d.]+,[\d.]+ C/);
    const lane = Number(/ V([\d.]+) /.exec(skip?.d ?? '')?.[1]);
    expect(lane).toBeLessThan(Math.min(...layout.nodes.map((n) => n.y)));
    expect(layout.nodes.every((n) => n.y + n.height <= layout.height)).toBe(true);
    // An edge that skips a column but passes beside the step in between stays a plain curve.
    const beside = layoutDag([
      { name: 'a', dependsOn: [] },
      { name: 'b1', dependsOn: ['a'] },
      { name: 'b2', dependsOn: ['a'] },
      { name: 'c', dependsOn: ['b1', 'b2', 'a'] },
    ]);
    expect(beside.edges.find((e) => e.from === 'a' && e.to === 'c')?.d).toMatch(/ C/);
  });
});
