import { describe, expect, it } from 'vitest';

import { DAG_NODE_MIN_W, DAG_NODE_W, layoutDag, roundedPath, stepDepths, type DagLayout, type DagStep } from './dagLayout';

// Seed 002 §5.1: a, then b and c in parallel, then d waiting for both.
const DIAMOND: DagStep[] = [
  { name: 'step-a', dependsOn: [] },
  { name: 'step-b', dependsOn: ['step-a'] },
  { name: 'step-c', dependsOn: ['step-a'] },
  { name: 'step-d', dependsOn: ['step-b', 'step-c'] },
];

// Edges that skip layers, fan in and out: what drew an edge behind a node, or as a box over the top, before.
const TANGLED: DagStep[] = [
  { name: 'build', dependsOn: [] },
  { name: 'lint', dependsOn: [] },
  { name: 'test', dependsOn: ['build'] },
  { name: 'docs', dependsOn: ['build', 'lint'] },
  { name: 'package', dependsOn: ['build', 'test'] },
  { name: 'sign', dependsOn: ['package'] },
  { name: 'publish', dependsOn: ['sign', 'docs', 'build', 'lint'] },
];

function node(layout: DagLayout, name: string) {
  const found = layout.nodes.find((n) => n.name === name);
  if (!found) throw new Error(`${name} not laid out`);
  return found;
}

/** Whether the segment p-q (horizontal or vertical) passes through the inside of the box. */
function crosses(p: { x: number; y: number }, q: { x: number; y: number }, box: DagLayout['nodes'][number]): boolean {
  const inside = 0.5;
  const [x1, x2] = [Math.min(p.x, q.x), Math.max(p.x, q.x)];
  const [y1, y2] = [Math.min(p.y, q.y), Math.max(p.y, q.y)];
  return x2 > box.x + inside && x1 < box.x + box.width - inside && y2 > box.y + inside && y1 < box.y + box.height - inside;
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

describe('layoutDag (ELK)', () => {
  it('lays the diamond out left to right by depth, the parallel steps one above the other', async () => {
    const layout = await layoutDag(DIAMOND);
    const [a, b, c, d] = DIAMOND.map((s) => node(layout, s.name));
    expect(a!.x).toBeLessThan(b!.x);
    expect(b!.x).toBe(c!.x);
    expect(c!.x).toBeLessThan(d!.x);
    expect(b!.y).not.toBe(c!.y);
  });

  it('keeps every node inside the drawing and apart from every other', async () => {
    const layout = await layoutDag(TANGLED);
    expect(layout.nodes).toHaveLength(TANGLED.length);
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

  it('routes every edge from its dependency to its step without passing through any node', async () => {
    const layout = await layoutDag(TANGLED);
    const expected = TANGLED.flatMap((s) => s.dependsOn.map((d) => `${d}>${s.name}`)).sort();
    expect(layout.edges.map((e) => `${e.from}>${e.to}`).sort()).toEqual(expected);
    for (const edge of layout.edges) {
      const [start, end] = [edge.points[0]!, edge.points[edge.points.length - 1]!];
      const from = node(layout, edge.from);
      const to = node(layout, edge.to);
      // It leaves the dependency's right side and enters the step's left side.
      expect(start.x).toBeCloseTo(from.x + from.width);
      expect(end.x).toBeCloseTo(to.x);
      for (let i = 1; i < edge.points.length; i += 1) {
        const [p, q] = [edge.points[i - 1]!, edge.points[i]!];
        expect(p.x === q.x || p.y === q.y, `${edge.from}>${edge.to} has a slanted run`).toBe(true);
        for (const box of layout.nodes) {
          expect(crosses(p, q, box), `${edge.from}>${edge.to} passes through ${box.name}`).toBe(false);
        }
      }
    }
  });

  it('lays out independent roots (seed 002 §4.3) in one column', async () => {
    const layout = await layoutDag(['a', 'b', 'c', 'd'].map((name) => ({ name, dependsOn: [] })));
    expect(new Set(layout.nodes.map((n) => n.x)).size).toBe(1);
    expect(layout.edges).toEqual([]);
  });

  it('narrows the nodes to fit the frame, down to a minimum below which the frame pans', async () => {
    const chain = ['a', 'b', 'c', 'd', 'e'].map((name, i, all) => ({ name, dependsOn: i ? [all[i - 1] as string] : [] }));
    expect((await layoutDag(chain)).nodes[0]?.width).toBe(DAG_NODE_W);
    const fitted = await layoutDag(chain, 1250);
    expect(fitted.width).toBeLessThanOrEqual(1250);
    expect(fitted.nodes[0]?.width).toBeLessThan(DAG_NODE_W);
    const phone = await layoutDag(chain, 360);
    expect(phone.nodes.every((n) => n.width === DAG_NODE_MIN_W)).toBe(true);
    expect(phone.width).toBeGreaterThan(360);
  });
});

describe('roundedPath', () => {
  it('keeps the ends and rounds each corner', () => {
    const d = roundedPath([
      { x: 0, y: 0 },
      { x: 20, y: 0 },
      { x: 20, y: 30 },
    ]);
    expect(d).toBe('M0,0 L14,0 Q20,0 20,6 L20,30');
    expect(roundedPath([])).toBe('');
  });
});
