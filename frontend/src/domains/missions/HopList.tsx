/** A mission's hops in order, each with its plan and tool steps (tool, parameters, result or error). */
import { offers } from '../../core/actions';
import { elapsed, formatDuration, formatTime } from '../../core/format';
import { StatusBadge } from '../../ui/StatusBadge';
import type { HopDetail, ToolStep } from './api';
import { CancelHop, ProposalDecision, StartHop } from './Decision';

export function HopList({ hops, now }: { hops: readonly HopDetail[]; now: number }) {
  if (!hops.length) {
    return (
      <p className="card empty-small">
        No hop yet. Once the mission is approved, the agent proposes a hop plan with <code>proposeHop</code>.
      </p>
    );
  }
  return (
    <ol className="timeline hops">
      {hops.map((hop) => (
        <HopItem key={hop.id} hop={hop} now={now} />
      ))}
    </ol>
  );
}

function hopTiming(hop: HopDetail, now: number): string {
  const ran = elapsed(hop.startedAt, hop.completedAt, now);
  if (ran === null) return `proposed ${formatTime(hop.createdAt)}`;
  return hop.completedAt ? `took ${formatDuration(ran)}` : `running for ${formatDuration(ran)}`;
}

function HopItem({ hop, now }: { hop: HopDetail; now: number }) {
  const status = hop.status.toLowerCase();
  const label = `hop ${hop.sequence} “${hop.name}”`;
  const steps = hop.toolSteps.edges.map((e) => e.node);
  return (
    <li className={`timeline-step hop step-${status}`} data-hop-id={hop.id} data-status={status}>
      <div className="timeline-head">
        <h3>
          Hop {hop.sequence}
          <span className="step-title"> · {hop.name}</span>
          {hop.isFinal ? <span className="step-type"> · final hop</span> : null}
        </h3>
        <StatusBadge status={hop.status} />
        <span className="meta">{hopTiming(hop, now)}</span>
      </div>
      <p className="pre hop-plan">
        <strong>Plan:</strong> {hop.plan}
      </p>
      {hop.statusReason ? (
        <p className={`status-reason status-reason-${status}`} data-testid="hop-reason">
          {hop.statusReason}
        </p>
      ) : null}
      {steps.length ? <ToolSteps steps={steps} /> : null}
      <HopAction hop={hop} label={label} />
      {offers(hop.availableActions, 'cancelHop') ? <CancelHop hopId={hop.id} missionId={hop.missionId} label={label} /> : null}
    </li>
  );
}

/** What a person can do with the hop now, if anything: the server's offer (availableActions), in words. */
function HopAction({ hop, label }: { hop: HopDetail; label: string }) {
  const waiting = (text: string) => (
    <p>
      <strong>{text}</strong>
    </p>
  );
  const offered = hop.availableActions;
  if (offers(offered, 'approveHopPlan') || offers(offered, 'rejectHopPlan')) {
    return (
      <div className="review-box">
        {waiting('The plan waits for your decision.')}
        <ProposalDecision kind="hopPlan" id={hop.id} missionId={hop.missionId} label={`the plan of ${label}`} />
      </div>
    );
  }
  if (offers(offered, 'approveHopImplementation') || offers(offered, 'rejectHopImplementation')) {
    return (
      <div className="review-box">
        {waiting('The implementation (the tool steps above) waits for your decision.')}
        <ProposalDecision
          kind="hopImplementation"
          id={hop.id}
          missionId={hop.missionId}
          label={`the implementation of ${label}`}
        />
      </div>
    );
  }
  if (offers(offered, 'startHop')) {
    return (
      <div className="review-box">
        {waiting('The implementation is approved; a person starts the hop.')}
        <StartHop hopId={hop.id} missionId={hop.missionId} label={label} />
      </div>
    );
  }
  return null;
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

function ToolSteps({ steps }: { steps: readonly ToolStep[] }) {
  return (
    <ol className="tool-steps" aria-label="Tool steps">
      {steps.map((step) => {
        const status = step.status.toLowerCase();
        return (
          <li
            key={step.id}
            className={`tool-step tool-step-${status}`}
            data-tool-step-id={step.id}
            data-status={status}
          >
            <div className="timeline-head">
              <h4>
                {step.position}. {step.name}
              </h4>
              <StatusBadge status={step.status} />
              <span className="meta">{step.toolName ? <code>{step.toolName}</code> : 'no tool selected yet'}</span>
            </div>
            {step.description ? <p className="hint">{step.description}</p> : null}
            <dl className="step-facts">
              {step.parameters != null ? (
                <>
                  <dt>Parameters</dt>
                  <dd>
                    <pre className="json">{json(step.parameters)}</pre>
                  </dd>
                </>
              ) : null}
              {step.result != null ? (
                <>
                  <dt>Result</dt>
                  <dd>
                    <pre className="json" data-testid="tool-step-result">
                      {json(step.result)}
                    </pre>
                  </dd>
                </>
              ) : null}
              {step.statusReason ? (
                <>
                  <dt>{step.status === 'FAILED' ? 'Error' : 'Why'}</dt>
                  <dd className={step.status === 'FAILED' ? 'tool-step-error' : undefined}>{step.statusReason}</dd>
                </>
              ) : null}
            </dl>
          </li>
        );
      })}
    </ol>
  );
}
