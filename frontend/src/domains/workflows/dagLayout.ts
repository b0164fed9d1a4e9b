/**
 * Lay out a workflow's DAG: one column per depth (the longest chain of dependencies before a step), so
 * every edge points right; within a column, steps sit near the steps they depend on.
 */

export interface DagStep {
  name: string;
  dependsOn: readonly string[];
}

export interface DagNode {
  name: string;
  depth: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface DagEdge {
  from: string;
  to: string;
  d: string;
}

export interface DagLayout {
  width: number;
  height: number;
  nodes: DagNode[];
  edges: DagEdge[];
}

/** Nodes are this wide when there is room, and never narrower than the minimum (the frame scrolls then). */
export const DAG_NODE_W = 232;
export const DAG_NODE_MIN_W = 190;
export const DAG_NODE_H = 136;
const COL_GAP = 48;
const ROW_GAP = 18;
const PAD = 12;
/** Height of the band an edge gets when it must go over the nodes between its ends. */
const LANE = 12;

/**
 * Depth of each step: 0 for a root, else one more than its deepest dependency. Unknown dependencies are
 * ignored, and a cycle (which the server refuses to define) cannot loop: a step met again while its own
 * depth is being worked out counts as a root.
 */
export function stepDepths(steps: readonly DagStep[]): Map<string, number> {
  const byName = new Map(steps.map((s) => [s.name, s]));
  const depth = new Map<string, number>();
  const visiting = new Set<string>();
  const visit = (name: string): number => {
    const known = depth.get(name);
    if (known !== undefined) return known;
    if (visiting.has(name)) return -1;
    visiting.add(name);
    const deps = (byName.get(name)?.dependsOn ?? []).filter((d) => byName.has(d));
    const value = Math.max(-1, ...deps.map(visit)) + 1;
    visiting.delete(name);
    depth.set(name, value);
    return value;
  };
  for (const step of steps) visit(step.name);
  return depth;
}

/** The steps of each column, top to bottom: first column in definition order, then by where their dependencies sit. */
function columnsOf(steps: readonly DagStep[], depth: Map<string, number>): string[][] {
  const columns: string[][] = [];
  for (const step of steps) (columns[depth.get(step.name) ?? 0] ??= []).push(step.name);
  const row = new Map<string, number>();
  const byName = new Map(steps.map((s) => [s.name, s]));
  const definition = new Map(steps.map((s, i) => [s.name, i]));
  return columns.map((column) => {
    const place = (name: string): number => {
      const rows = (byName.get(name)?.dependsOn ?? []).flatMap((d) => (row.has(d) ? [row.get(d) as number] : []));
      return rows.length ? rows.reduce((a, b) => a + b, 0) / rows.length : (definition.get(name) ?? 0);
    };
    const sorted = [...column].sort((a, b) => place(a) - place(b) || (definition.get(a) ?? 0) - (definition.get(b) ?? 0));
    // Rows are compared across columns by their centre, so columns of different heights line up.
    sorted.forEach((name, i) => row.set(name, i - (sorted.length - 1) / 2));
    return sorted;
  });
}

/** The node width that makes `columns` columns fit `available` pixels, within the bounds above. */
export function nodeWidthFor(columns: number, available: number): number {
  const fit = Math.floor((available - PAD * 2 - Math.max(0, columns - 1) * COL_GAP) / Math.max(1, columns));
  return Math.max(DAG_NODE_MIN_W, Math.min(DAG_NODE_W, fit));
}

/** `available`: the width of the frame the graph is drawn in (nodes narrow to fit it, down to a minimum). */
export function layoutDag(steps: readonly DagStep[], available = Number.POSITIVE_INFINITY): DagLayout {
  const depth = stepDepths(steps);
  const columns = columnsOf(steps, depth);
  const nodeW = nodeWidthFor(columns.length, available);
  const rows = Math.max(1, ...columns.map((c) => c.length));
  const height = PAD * 2 + rows * DAG_NODE_H + (rows - 1) * ROW_GAP;
  const width = PAD * 2 + columns.length * nodeW + Math.max(0, columns.length - 1) * COL_GAP;
  const nodes: DagNode[] = [];
  const byName = new Map<string, DagNode>();
  columns.forEach((column, ci) => {
    const columnHeight = column.length * DAG_NODE_H + (column.length - 1) * ROW_GAP;
    const top = (height - columnHeight) / 2;
    column.forEach((name, ri) => {
      const node = {
        name,
        depth: ci,
        x: PAD + ci * (nodeW + COL_GAP),
        y: top + ri * (DAG_NODE_H + ROW_GAP),
        width: nodeW,
        height: DAG_NODE_H,
      };
      nodes.push(node);
      byName.set(name, node);
    });
  });
  const pairs = steps.flatMap((step) =>
    step.dependsOn.flatMap((dep) => {
      const a = byName.get(dep);
      const b = byName.get(step.name);
      return a && b ? [{ a, b }] : [];
    }),
  );
  // An edge that would run behind a step between its ends goes over the top instead, in a lane of its own
  // above every node; the nodes move down to make room.
  const hidden = pairs.filter(({ a, b }) => crossesNodes(a, b, nodes));
  const lanes = hidden.length * LANE;
  for (const node of nodes) node.y += lanes;
  const edges = pairs.map(({ a, b }) => {
    const lane = hidden.findIndex((h) => h.a === a && h.b === b);
    const d = lane < 0 ? edgePath(a, b) : overTheTop(a, b, PAD / 2 + lane * LANE + LANE / 2);
    return { from: a.name, to: b.name, d };
  });
  return { width, height: height + lanes, nodes, edges };
}

/** Whether the straight curve from a to b would pass behind a node of a column between them. */
function crossesNodes(a: DagNode, b: DagNode, nodes: readonly DagNode[]): boolean {
  if (b.depth - a.depth < 2) return false;
  const y1 = a.y + a.height / 2;
  const y2 = b.y + b.height / 2;
  const top = Math.min(y1, y2) - ROW_GAP / 2;
  const bottom = Math.max(y1, y2) + ROW_GAP / 2;
  return nodes.some((n) => n.depth > a.depth && n.depth < b.depth && n.y < bottom && n.y + n.height > top);
}

/** Out of a, up the gap after a's column to the lane, along it, down the gap before b's column, into b. */
function overTheTop(a: DagNode, b: DagNode, lane: number): string {
  const x1 = a.x + a.width;
  const y1 = a.y + a.height / 2;
  const x2 = b.x;
  const y2 = b.y + b.height / 2;
  const up = x1 + COL_GAP / 2;
  const down = x2 - COL_GAP / 2;
  const r = 8;
  return [
    `M${x1},${y1} H${up - r} Q${up},${y1} ${up},${y1 - r} V${lane + r} Q${up},${lane} ${up + r},${lane}`,
    `H${down - r} Q${down},${lane} ${down},${lane + r} V${y2 - r} Q${down},${y2} ${down + r},${y2} H${x2}`,
  ].join(' ');
}

/** Right side of the dependency to left side of the step: a gentle S-curve. */
function edgePath(a: DagNode, b: DagNode): string {
  const x1 = a.x + a.width;
  const y1 = a.y + a.height / 2;
  const x2 = b.x;
  const y2 = b.y + b.height / 2;
  const bend = Math.min(COL_GAP, (x2 - x1) / 2);
  return `M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}`;
}
