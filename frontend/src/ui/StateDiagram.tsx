/** Any state machine from the stateMachines query as an SVG, with the current state(s) highlighted. */
import { useEffect, useId, useMemo, useRef } from 'react';

import { layoutMachine, type MachineData } from '../core/diagramLayout';
import { words } from '../core/userErrors';

interface Props {
  machine: MachineData;
  /** State name → how many entities are in it now (a plan: one; steps: one count per state). */
  current: Readonly<Record<string, number>>;
  title: string;
}

export function StateDiagram({ machine, current, title }: Props) {
  const layout = useMemo(() => layoutMachine(machine), [machine]);
  const arrow = useId().replace(/:/g, '');
  const captionId = useId();
  const frame = useRef<HTMLDivElement>(null);
  const focus = layout.nodes.find((n) => (current[n.name] ?? 0) > 0);
  // On a narrow screen the diagram scrolls sideways: bring the current state into view.
  useEffect(() => {
    const el = frame.current;
    if (!el || !focus) return undefined;
    const reveal = () => {
      if (el.scrollWidth <= el.clientWidth) return;
      const scale = el.scrollWidth / layout.width;
      el.scrollLeft = (focus.x + focus.width / 2) * scale - el.clientWidth / 2;
    };
    reveal();
    const observer = new ResizeObserver(reveal);
    observer.observe(el);
    return () => observer.disconnect();
  }, [focus, layout.width]);
  const now = Object.entries(current)
    .filter(([, n]) => n > 0)
    .map(([state, n]) => (n > 1 ? `${words(state)} (${n})` : words(state)));
  return (
    <figure className="diagram" data-entity={machine.entity}>
      <figcaption id={captionId}>
        <strong>{title}</strong>
        {now.length ? ` — now: ${now.join(', ')}` : ''}
      </figcaption>
      {/* Focusable, so a keyboard can scroll a diagram wider than a phone's screen. */}
      <div className="diagram-scroll" ref={frame} tabIndex={0} role="group" aria-label={`${title}: scroll sideways to see all of it`}>
        <svg
          viewBox={`0 0 ${layout.width} ${layout.height}`}
          width={layout.width}
          role="img"
          aria-labelledby={captionId}
        >
          <defs>
            <marker id={arrow} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto">
              <path d="M0,0 L10,5 L0,10 z" className="diagram-arrowhead" />
            </marker>
          </defs>
          {layout.edges.map((edge) => (
            <path
              key={`${edge.from}-${edge.to}`}
              d={edge.d}
              className={`diagram-edge${(current[edge.from] ?? 0) > 0 ? ' diagram-edge-live' : ''}`}
              markerEnd={`url(#${arrow})`}
            >
              <title>{`${words(edge.from)} → ${words(edge.to)}`}</title>
            </path>
          ))}
          {layout.nodes.map((node) => {
            const count = current[node.name] ?? 0;
            const label = `${words(node.name)}${count > 1 ? ` ×${count}` : ''}`;
            // Long names (e.g. "ready for implementation") are squeezed into the box instead of spilling out.
            const squeeze = label.length > 19 ? { textLength: node.width - 14, lengthAdjust: 'spacingAndGlyphs' } : {};
            const classes = ['diagram-node', count > 0 ? 'diagram-node-current' : '', node.final ? 'diagram-node-final' : '']
              .filter(Boolean)
              .join(' ');
            return (
              <g key={node.name} className={classes} data-state={node.name} data-current={count > 0 ? 'true' : 'false'}>
                <rect x={node.x} y={node.y} width={node.width} height={node.height} rx={node.final ? 4 : 18} />
                <text
                  x={node.x + node.width / 2}
                  y={node.y + node.height / 2}
                  dominantBaseline="central"
                  textAnchor="middle"
                  {...squeeze}
                >
                  {label}
                </text>
                {node.initial ? (
                  <circle cx={node.x - 10} cy={node.y + node.height / 2} r={5} className="diagram-start" />
                ) : null}
              </g>
            );
          })}
        </svg>
      </div>
      <details className="diagram-table">
        <summary>
          Transitions as a table<span className="sr-only"> ({title})</span>
        </summary>
        <table>
          <thead>
            <tr>
              <th scope="col">From</th>
              <th scope="col">To</th>
            </tr>
          </thead>
          <tbody>
            {machine.states.map((state) => (
              <tr key={state.name}>
                <th scope="row">
                  {words(state.name)}
                  {state.initial ? ' (initial)' : ''}
                  {state.final ? ' (final)' : ''}
                </th>
                <td>
                  {machine.transitions
                    .filter((t) => t.from === state.name)
                    .map((t) => words(t.to))
                    .join(', ') || '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
