/**
 * The workflow's DAG, laid out by ELK (dagLayout.ts): each step a button showing its state, attempt,
 * timeout, last error, next attempt and undo; edges from each dependency to its step. The frame pans
 * (scroll, or drag the background) and zooms (buttons, or Ctrl + wheel); Fit shows the whole graph. When
 * part of the graph is out of view, the cut sides are shaded and a line says how many steps are hidden.
 */
import { useEffect, useLayoutEffect, useRef, useState, type PointerEvent as ReactPointerEvent, type RefObject } from 'react';

import { useNow } from '../../core/hooks';
import { StatusBadge } from '../../ui/StatusBadge';
import type { CompensationSummary, WorkflowStep } from './api';
import { layoutDag, type DagLayout } from './dagLayout';
import { attemptText, nodeFacts } from './stepFacts';
import { stepOutcome, type OutcomeTone } from './store';

interface Props {
  steps: readonly WorkflowStep[];
  undoByStep: ReadonlyMap<string, CompensationSummary>;
  selected: string | null;
  onSelect(stepId: string): void;
  /** How the workflow ended (store.ts workflowOutcome), which colours the frame; null while it runs. */
  outcome?: OutcomeTone | null;
}

const SATISFIED = new Set(['COMPLETED', 'SKIPPED']);
const MIN_ZOOM = 0.2;
/** Fit goes as small as the whole graph needs (a 200-step graph in a phone's frame), the zoom buttons not. */
const MIN_FIT = 0.02;
const MAX_ZOOM = 2;
const STEP = 1.25;

/** The inner width of an element, followed as it resizes (Infinity until measured). */
function useWidth(ref: RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(Number.POSITIVE_INFINITY);
  useEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    const measure = () => setWidth(el.clientWidth);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}

/** The layout for this shape of graph (names and dependencies), recomputed only when that shape changes. */
function useDagLayout(steps: readonly WorkflowStep[], available: number): DagLayout | null {
  const shape = JSON.stringify(steps.map((s) => [s.name, s.dependsOn]));
  const [layout, setLayout] = useState<{ key: string; value: DagLayout } | null>(null);
  const key = `${shape}@${available}`;
  useEffect(() => {
    let current = true;
    const parsed = (JSON.parse(shape) as [string, string[]][]).map(([name, dependsOn]) => ({ name, dependsOn }));
    void layoutDag(parsed, available).then((value) => {
      if (current) setLayout({ key, value });
    });
    return () => {
      current = false;
    };
  }, [key]);
  return layout?.value ?? null;
}

interface Cut {
  left: boolean;
  right: boolean;
  top: boolean;
  bottom: boolean;
  hidden: number;
}

const NOTHING_CUT: Cut = { left: false, right: false, top: false, bottom: false, hidden: 0 };

/** Which sides of the graph the frame cuts off at this zoom, and how many steps lie wholly outside it. */
function cutOf(frame: HTMLElement, layout: DagLayout, zoom: number): Cut {
  const { scrollLeft: x, scrollTop: y, clientWidth: w, clientHeight: h, scrollWidth, scrollHeight } = frame;
  const hidden = layout.nodes.filter(
    (n) => n.x * zoom + n.width * zoom <= x || n.x * zoom >= x + w || n.y * zoom + n.height * zoom <= y || n.y * zoom >= y + h,
  ).length;
  return { left: x > 1, right: x + w < scrollWidth - 1, top: y > 1, bottom: y + h < scrollHeight - 1, hidden };
}

function sameCut(a: Cut, b: Cut): boolean {
  return a.left === b.left && a.right === b.right && a.top === b.top && a.bottom === b.bottom && a.hidden === b.hidden;
}

export function DagView({ steps, undoByStep, selected, onSelect, outcome = null }: Props) {
  const frame = useRef<HTMLDivElement>(null);
  const available = useWidth(frame);
  const layout = useDagLayout(steps, available);
  const [zoom, setZoom] = useState(1);
  const [cut, setCut] = useState<Cut>(NOTHING_CUT);
  const byName = new Map(steps.map((s) => [s.name, s]));
  const now = useNow();
  const focus = steps.find((s) => s.status === 'RUNNING') ?? steps.find((s) => s.status === 'PENDING');
  const focusName = useRef<string | undefined>(undefined);
  focusName.current = focus?.name;

  const measure = () => {
    const el = frame.current;
    if (!el || !layout) return;
    const next = cutOf(el, layout, zoom);
    setCut((was) => (sameCut(was, next) ? was : next));
  };
  useLayoutEffect(measure);

  // When the graph is first drawn or its frame changes width (not on every update, which would fight the
  // reader's own panning): if it is wider than the frame, bring the work in progress into view.
  useEffect(() => {
    const el = frame.current;
    const target = layout?.nodes.find((n) => n.name === focusName.current);
    if (el && target && el.scrollWidth > el.clientWidth) el.scrollLeft = target.x + target.width / 2 - el.clientWidth / 2;
  }, [layout]);

  const zoomTo = (value: number) => setZoom((z) => Math.min(MAX_ZOOM, Math.max(Math.min(z, MIN_ZOOM), value)));
  const fit = () => {
    const el = frame.current;
    if (!el || !layout) return;
    // Rounded down, so the whole graph fits rather than a pixel or two more than the frame; every step in
    // view however small it gets (the zoom buttons then enlarge a part).
    const whole = Math.min(1, el.clientWidth / layout.width, Math.max(el.clientHeight, 240) / layout.height);
    setZoom(Math.max(MIN_FIT, Math.floor(whole * 100) / 100));
    el.scrollTo(0, 0);
  };

  // Ctrl + wheel zooms (a plain wheel keeps scrolling the page); React's wheel listener is passive.
  useEffect(() => {
    const el = frame.current;
    if (!el) return undefined;
    const onWheel = (e: WheelEvent) => {
      if (!e.ctrlKey) return;
      e.preventDefault();
      setZoom((z) => Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, z * (e.deltaY < 0 ? 1.1 : 1 / 1.1))));
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, []);

  // Dragging the background pans; a press on a step stays a click on it.
  const drag = useRef<{ x: number; y: number; left: number; top: number } | null>(null);
  const onPointerDown = (e: ReactPointerEvent<HTMLDivElement>) => {
    const el = frame.current;
    if (!el || e.button !== 0 || (e.target as Element).closest('button')) return;
    drag.current = { x: e.clientX, y: e.clientY, left: el.scrollLeft, top: el.scrollTop };
    el.setPointerCapture(e.pointerId);
  };
  const onPointerMove = (e: ReactPointerEvent<HTMLDivElement>) => {
    const el = frame.current;
    const start = drag.current;
    if (!el || !start) return;
    el.scrollLeft = start.left - (e.clientX - start.x);
    el.scrollTop = start.top - (e.clientY - start.y);
  };
  const endDrag = () => {
    drag.current = null;
  };

  const cutSides = (['left', 'right', 'top', 'bottom'] as const).filter((side) => cut[side]);
  return (
    <div className="dag-view" data-testid="dag-view">
      <div className="dag-toolbar" role="toolbar" aria-label="Graph view">
        <button type="button" onClick={() => zoomTo(Math.min(zoom, zoom / STEP))} disabled={zoom <= MIN_ZOOM} aria-label="Zoom out of the graph">
          −
        </button>
        <span className="dag-zoom" data-testid="dag-zoom" aria-live="polite">
          {Math.round(zoom * 100)}%
        </span>
        <button type="button" onClick={() => zoomTo(zoom * STEP)} disabled={zoom >= MAX_ZOOM} aria-label="Zoom into the graph">
          +
        </button>
        <button type="button" onClick={fit}>
          Fit the graph
        </button>
        <button type="button" onClick={() => zoomTo(1)} disabled={zoom === 1}>
          Actual size
        </button>
        {cutSides.length ? (
          <span className="dag-cut-note" role="status" data-testid="dag-cut">
            {cut.hidden
              ? `${cut.hidden} of ${steps.length} step${steps.length === 1 ? '' : 's'} out of view`
              : 'Part of the graph is out of view'}{' '}
            ({cutSides.map((s) => (s === 'left' || s === 'right' ? `${s}` : s === 'top' ? 'above' : 'below')).join(', ')}): drag
            or scroll to pan, or fit the graph.
          </span>
        ) : null}
      </div>
      <div className={['dag-frame', outcome ? `outcome-${outcome}` : '', ...cutSides.map((s) => `dag-cut-${s}`)].join(' ')}>
        <div
          className="dag-scroll"
          ref={frame}
          onScroll={measure}
          onPointerDown={onPointerDown}
          onPointerMove={onPointerMove}
          onPointerUp={endDrag}
          onPointerCancel={endDrag}
          data-cut={cutSides.join(' ') || undefined}
        >
          {layout ? (
            <div className="dag-zoomed" style={{ width: layout.width * zoom, height: layout.height * zoom }}>
              <div className="dag" style={{ width: layout.width, height: layout.height, transform: `scale(${zoom})` }}>
                <svg
                  className="dag-edges"
                  width={layout.width}
                  height={layout.height}
                  viewBox={`0 0 ${layout.width} ${layout.height}`}
                  aria-hidden="true"
                >
                  <defs>
                    <marker id="dag-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="5" markerHeight="5" orient="auto">
                      <path d="M0,0 L10,5 L0,10 z" className="dag-arrowhead" />
                    </marker>
                  </defs>
                  {layout.edges.map((edge) => {
                    const done = SATISFIED.has(byName.get(edge.from)?.status ?? '');
                    return (
                      <path
                        key={`${edge.from}>${edge.to}`}
                        d={edge.d}
                        className={`dag-edge${done ? ' dag-edge-done' : ''}`}
                        markerEnd="url(#dag-arrow)"
                        data-edge={`${edge.from}>${edge.to}`}
                      />
                    );
                  })}
                </svg>
                <ol className="dag-nodes" aria-label="Steps, by depth: each depends on steps to its left">
                  {layout.nodes.map((node) => {
                    const step = byName.get(node.name);
                    if (!step) return null;
                    const undo = undoByStep.get(step.id);
                    const status = step.status.toLowerCase();
                    const undone = stepOutcome(step.status, undo?.status);
                    const classes = [
                      'dag-node',
                      `dag-node-${status}`,
                      undone ? `dag-node-${undone}` : '',
                      step.blockedOn ? 'dag-node-blocked' : '',
                    ].filter(Boolean);
                    return (
                      <li key={node.name} className="dag-slot" style={{ left: node.x, top: node.y, width: node.width, height: node.height }}>
                        <button
                          type="button"
                          className={classes.join(' ')}
                          aria-pressed={selected === step.id}
                          data-step-name={step.name}
                          data-status={status}
                          data-undo={undone ?? undefined}
                          data-blocked-on={step.blockedOn?.toLowerCase() ?? undefined}
                          onClick={() => onSelect(step.id)}
                        >
                          <span className="dag-node-name" title={step.name}>
                            {step.name}
                          </span>
                          <span className="dag-node-state">
                            <StatusBadge status={step.status} />
                            {step.approval ? <span className="dag-tag">gate</span> : null}
                          </span>
                          <span className="dag-fact tone-plain" data-fact="attempt">
                            {attemptText(step)}
                          </span>
                          {nodeFacts(step, undo, now).map((fact) => (
                            <span key={fact.key} className={`dag-fact tone-${fact.tone}`} data-fact={fact.key} title={fact.title}>
                              {fact.text}
                            </span>
                          ))}
                          <span className="sr-only">
                            {step.dependsOn.length ? `, after ${step.dependsOn.join(', ')}` : ', a root step'}
                          </span>
                        </button>
                      </li>
                    );
                  })}
                </ol>
              </div>
            </div>
          ) : (
            <p className="hint dag-loading">Laying out the graph…</p>
          )}
        </div>
      </div>
    </div>
  );
}
