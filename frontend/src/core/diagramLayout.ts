/**
 * Lay out any state machine (as the stateMachines query returns it) for an SVG diagram.
 *
 * States are ranked by their shortest distance from the initial state and placed in columns; edges to
 * a later column are drawn straight, every other edge (back edges, edges within a column) as an arc,
 * so nothing is specific to one machine.
 */

export interface MachineData {
  domain: string;
  entity: string;
  description: string;
  initial: string;
  states: readonly { name: string; initial: boolean; final: boolean }[];
  transitions: readonly { from: string; to: string }[];
}

export interface NodeBox {
  name: string;
  x: number;
  y: number;
  width: number;
  height: number;
  initial: boolean;
  final: boolean;
}

export interface EdgePath {
  from: string;
  to: string;
  d: string;
}

export interface Layout {
  width: number;
  height: number;
  nodes: NodeBox[];
  edges: EdgePath[];
}

export const NODE_W = 150;
export const NODE_H = 40;
const COL_GAP = 70;
const ROW_GAP = 34;
const PAD = 24;
/** Room right of the last column for arcs between states of one column. */
const ARC_ROOM = 44;
/** Two edges between the same states (a → b and b → a) run this far apart. */
const PAIR_GAP = 6;

export function rankStates(machine: MachineData): Map<string, number> {
  const next = new Map<string, string[]>();
  for (const t of machine.transitions) next.set(t.from, [...(next.get(t.from) ?? []), t.to]);
  const rank = new Map<string, number>([[machine.initial, 0]]);
  const queue = [machine.initial];
  while (queue.length) {
    const state = queue.shift() as string;
    for (const target of next.get(state) ?? []) {
      if (!rank.has(target)) {
        rank.set(target, (rank.get(state) ?? 0) + 1);
        queue.push(target);
      }
    }
  }
  // States not reachable from the initial one (a machine the server refuses to define) go last.
  const last = Math.max(0, ...rank.values()) + 1;
  for (const s of machine.states) if (!rank.has(s.name)) rank.set(s.name, last);
  return rank;
}

export function layoutMachine(machine: MachineData): Layout {
  const rank = rankStates(machine);
  const columns: string[][] = [];
  for (const s of machine.states) {
    const r = rank.get(s.name) ?? 0;
    (columns[r] ??= []).push(s.name);
  }
  const filled = columns.filter((c) => c && c.length);
  const rows = Math.max(1, ...filled.map((c) => c.length));
  const height = PAD * 2 + rows * NODE_H + (rows - 1) * ROW_GAP + 40;
  const byName = new Map<string, NodeBox>();
  const nodes: NodeBox[] = [];
  filled.forEach((column, ci) => {
    const columnHeight = column.length * NODE_H + (column.length - 1) * ROW_GAP;
    const top = (height - columnHeight) / 2;
    column.forEach((name, ri) => {
      const state = machine.states.find((s) => s.name === name);
      const box: NodeBox = {
        name,
        x: PAD + ci * (NODE_W + COL_GAP),
        y: top + ri * (NODE_H + ROW_GAP),
        width: NODE_W,
        height: NODE_H,
        initial: state?.initial ?? false,
        final: state?.final ?? false,
      };
      byName.set(name, box);
      nodes.push(box);
    });
  });
  const width = PAD * 2 + filled.length * NODE_W + (filled.length - 1) * COL_GAP + ARC_ROOM;
  const pairs = new Set(machine.transitions.map((t) => `${t.from}>${t.to}`));
  const edges = machine.transitions.flatMap((t) => {
    const a = byName.get(t.from);
    const b = byName.get(t.to);
    if (!a || !b) return [];
    return [{ from: t.from, to: t.to, d: edgePath(a, b, pairs.has(`${t.to}>${t.from}`)) }];
  });
  return { width, height, nodes, edges };
}

function curve(x1: number, y1: number, x2: number, y2: number): string {
  const mid = (x1 + x2) / 2;
  return `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}`;
}

function edgePath(a: NodeBox, b: NodeBox, paired: boolean): string {
  const shift = paired ? PAIR_GAP : 0;
  const ay = a.y + a.height / 2;
  const by = b.y + b.height / 2;
  if (b.x > a.x) {
    // Forward: right side of a to left side of b, a gentle S-curve (above its reverse edge, if any).
    return curve(a.x + a.width, ay - shift, b.x, by - shift);
  }
  if (b.x < a.x && a.x - b.x <= NODE_W + COL_GAP) {
    // Back to the previous column: left side of a to right side of b, just below the forward edge.
    return curve(a.x, ay + shift, b.x + b.width, by + shift);
  }
  if (b.x < a.x) {
    // Back across several columns: bottom of a to bottom of b, an arc below both.
    const x1 = a.x + a.width / 2;
    const x2 = b.x + b.width / 2;
    const y1 = a.y + a.height;
    const y2 = b.y + b.height;
    const dip = Math.max(y1, y2) + 28;
    return `M${x1 - 10},${y1} C${x1 - 10},${dip} ${x2 + 10},${dip} ${x2 + 10},${y2}`;
  }
  // Same column: an arc out to the right.
  const x = a.x + a.width;
  const bulge = x + 36;
  const down = b.y > a.y;
  const y1 = down ? a.y + a.height - 8 : a.y + 8;
  const y2 = down ? b.y + 8 : b.y + b.height - 8;
  return `M${x},${y1} C${bulge},${y1} ${bulge},${y2} ${x},${y2}`;
}
