/**
 * Lay out a workflow's DAG with ELK's layered algorithm (elkjs, bundled): one layer per depth, left to
 * right, edges routed orthogonally between the nodes (an edge that spans several layers runs through
 * the gaps, never behind a node), crossings kept low. ELK works off the main thread; the caller awaits it.
 */
import type { ELK, ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk.bundled.js';

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
  /** The route as SVG path data. */
  d: string;
  /** The same route as points (start, bends, end), for checks. */
  points: { x: number; y: number }[];
}

export interface DagLayout {
  width: number;
  height: number;
  nodes: DagNode[];
  edges: DagEdge[];
}

/** Nodes are this wide when there is room, and never narrower than the minimum (the frame pans then). */
export const DAG_NODE_W = 232;
export const DAG_NODE_MIN_W = 190;
export const DAG_NODE_H = 136;
const LAYER_GAP = 56;
const ROW_GAP = 22;
const PAD = 12;
/** Rounding of an edge's corners. */
const CORNER = 6;

/** What lays a graph out: ELK in a Web Worker in the browser, in this thread where there is no Worker. */
type Layout = (graph: ElkNode) => Promise<ElkNode>;

/**
 * In the browser ELK runs in a Web Worker (elkWorker.ts), started on the first workflow page that draws
 * a graph: a 200-step layout takes long enough to freeze the page on the main thread. Where there is no
 * Worker (the unit tests under Node) it runs here, loaded on first use in a chunk of its own.
 */
let layout: Layout | null = null;
function elkLayout(): Layout {
  if (layout) return layout;
  if (typeof Worker !== 'undefined') {
    const worker = new Worker(new URL('./elkWorker.ts', import.meta.url), { type: 'module' });
    const waiting = new Map<number, { resolve: (n: ElkNode) => void; reject: (e: Error) => void }>();
    let next = 0;
    worker.onmessage = (event: MessageEvent<{ id: number; placed?: ElkNode; error?: string }>) => {
      const { id, placed, error } = event.data;
      const call = waiting.get(id);
      waiting.delete(id);
      if (!call) return;
      if (placed) call.resolve(placed);
      else call.reject(new Error(error ?? 'the layout failed'));
    };
    layout = (graph) =>
      new Promise((resolve, reject) => {
        const id = ++next;
        waiting.set(id, { resolve, reject });
        worker.postMessage({ id, graph });
      });
  } else {
    let elk: Promise<ELK> | null = null;
    layout = async (graph) => {
      elk ??= import('elkjs/lib/elk.bundled.js').then(({ default: Elk }) => new Elk());
      return (await elk).layout(graph);
    };
  }
  return layout;
}

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

/** The node width that makes `columns` columns fit `available` pixels, within the bounds above. */
export function nodeWidthFor(columns: number, available: number): number {
  const fit = Math.floor((available - PAD * 2 - Math.max(0, columns - 1) * LAYER_GAP) / Math.max(1, columns));
  return Math.max(DAG_NODE_MIN_W, Math.min(DAG_NODE_W, fit));
}

const OPTIONS: Record<string, string> = {
  'elk.algorithm': 'layered',
  'elk.direction': 'RIGHT',
  'elk.edgeRouting': 'ORTHOGONAL',
  'elk.layered.layering.strategy': 'LONGEST_PATH',
  'elk.layered.nodePlacement.strategy': 'NETWORK_SIMPLEX',
  'elk.layered.crossingMinimization.strategy': 'LAYER_SWEEP',
  'elk.spacing.nodeNode': String(ROW_GAP),
  'elk.layered.spacing.nodeNodeBetweenLayers': String(LAYER_GAP),
  'elk.spacing.edgeNode': '14',
  'elk.spacing.edgeEdge': '8',
  'elk.layered.spacing.edgeNodeBetweenLayers': '14',
  'elk.layered.spacing.edgeEdgeBetweenLayers': '8',
  'elk.padding': `[top=${PAD},left=${PAD},bottom=${PAD},right=${PAD}]`,
  // Keep the definition order where nothing else decides, so the same workflow always looks the same.
  'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
  // Unconnected steps (independent roots) share the first layer rather than being packed side by side.
  'elk.separateConnectedComponents': 'false',
};

/** `available`: the width of the frame the graph is drawn in (nodes narrow to fit it, down to a minimum). */
export async function layoutDag(steps: readonly DagStep[], available = Number.POSITIVE_INFINITY): Promise<DagLayout> {
  const depth = stepDepths(steps);
  const known = new Set(steps.map((s) => s.name));
  const columns = Math.max(0, ...depth.values()) + 1;
  const nodeW = nodeWidthFor(columns, available);
  // Step names are unique within a workflow; ELK's ids are the names, edges `dep>step`.
  const pairs = steps.flatMap((step) =>
    [...new Set(step.dependsOn)].filter((dep) => known.has(dep) && dep !== step.name).map((dep) => ({ from: dep, to: step.name })),
  );
  const graph: ElkNode = {
    id: '#root',
    layoutOptions: OPTIONS,
    children: steps.map((s) => ({ id: s.name, width: nodeW, height: DAG_NODE_H })),
    edges: pairs.map(({ from, to }) => ({ id: `${from}>${to}`, sources: [from], targets: [to] })),
  };
  const placed = await elkLayout()(graph);
  const nodes: DagNode[] = (placed.children ?? []).map((n) => ({
    name: n.id,
    depth: depth.get(n.id) ?? 0,
    x: n.x ?? 0,
    y: n.y ?? 0,
    width: n.width ?? nodeW,
    height: n.height ?? DAG_NODE_H,
  }));
  const edges = (placed.edges ?? []).flatMap((edge: ElkExtendedEdge) => {
    const [from, to] = [edge.sources[0] ?? '', edge.targets[0] ?? ''];
    return (edge.sections ?? []).map((section) => {
      const points = [section.startPoint, ...(section.bendPoints ?? []), section.endPoint].map(({ x, y }) => ({ x, y }));
      return { from, to, points, d: roundedPath(points) };
    });
  });
  return { width: placed.width ?? 0, height: placed.height ?? 0, nodes, edges };
}

/** A polyline of horizontal and vertical runs as SVG path data, its corners slightly rounded. */
export function roundedPath(points: readonly { x: number; y: number }[]): string {
  const [first, ...rest] = points;
  if (!first) return '';
  const parts = [`M${first.x},${first.y}`];
  rest.forEach((point, i) => {
    const prev = points[i] ?? first;
    const next = rest[i + 1];
    if (!next) {
      parts.push(`L${point.x},${point.y}`);
      return;
    }
    // Stop short of the corner, then curve round it towards the next point.
    const r = Math.min(CORNER, dist(prev, point) / 2, dist(point, next) / 2);
    const before = towards(point, prev, r);
    const after = towards(point, next, r);
    parts.push(`L${before.x},${before.y}`, `Q${point.x},${point.y} ${after.x},${after.y}`);
  });
  return parts.join(' ');
}

function dist(a: { x: number; y: number }, b: { x: number; y: number }): number {
  return Math.hypot(b.x - a.x, b.y - a.y);
}

function towards(from: { x: number; y: number }, to: { x: number; y: number }, by: number): { x: number; y: number } {
  const d = dist(from, to) || 1;
  return { x: from.x + ((to.x - from.x) * by) / d, y: from.y + ((to.y - from.y) * by) / d };
}
