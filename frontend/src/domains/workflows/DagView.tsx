/**
 * The workflow's DAG: one column per depth, edges from each dependency to its step, and each step a
 * button showing its state, attempt, timeout, last error, next attempt and undo. Nodes change as the
 * snapshots arrive; on a narrow screen the graph scrolls sideways and starts at the work in progress.
 */
import { useEffect, useMemo, useRef, useState, type RefObject } from 'react';

import { useNow } from '../../core/hooks';
import { StatusBadge } from '../../ui/StatusBadge';
import type { CompensationSummary, WorkflowStep } from './api';
import { layoutDag, type DagNode } from './dagLayout';
import { attemptText, nodeFacts } from './stepFacts';

interface Props {
  steps: readonly WorkflowStep[];
  undoByStep: ReadonlyMap<string, CompensationSummary>;
  selected: string | null;
  onSelect(stepId: string): void;
}

const SATISFIED = new Set(['COMPLETED', 'SKIPPED']);

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

export function DagView({ steps, undoByStep, selected, onSelect }: Props) {
  // The layout depends on names and dependencies only, not on the states every snapshot changes,
  // so it is recomputed only when that shape changes.
  const shape = JSON.stringify(steps.map((s) => [s.name, s.dependsOn]));
  const frame = useRef<HTMLDivElement>(null);
  const available = useWidth(frame);
  const layout = useMemo(() => layoutDag(steps, available), [shape, available]);
  const byName = new Map(steps.map((s) => [s.name, s]));
  const now = useNow();
  const focus = steps.find((s) => s.status === 'RUNNING') ?? steps.find((s) => s.status === 'PENDING');
  const focusNode = useRef<DagNode | undefined>(undefined);
  focusNode.current = focus ? layout.nodes.find((n) => n.name === focus.name) : undefined;

  // When the graph is first drawn or its frame changes width (not on every update, which would fight the
  // reader's own scrolling): if it is wider than the frame, bring the work in progress into view.
  useEffect(() => {
    const el = frame.current;
    const target = focusNode.current;
    if (el && target && el.scrollWidth > el.clientWidth) el.scrollLeft = target.x + target.width / 2 - el.clientWidth / 2;
  }, [layout]);

  return (
    <div className="dag-scroll" ref={frame}>
      <div className="dag" style={{ width: layout.width, height: layout.height }}>
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
            const status = step.status.toLowerCase();
            const classes = ['dag-node', `dag-node-${status}`, step.blockedOn ? 'dag-node-blocked' : ''].filter(Boolean);
            return (
              <li key={node.name} className="dag-slot" style={{ left: node.x, top: node.y, width: node.width, height: node.height }}>
                <button
                  type="button"
                  className={classes.join(' ')}
                  aria-pressed={selected === step.id}
                  data-step-name={step.name}
                  data-status={status}
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
                  {nodeFacts(step, undoByStep.get(step.id), now).map((fact) => (
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
  );
}
