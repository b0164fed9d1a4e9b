/** One mission, live: its state, hops with their tool steps, assets with TTL countdowns, machines, history. */
import { offers } from '../../core/actions';
import { formatTime } from '../../core/format';
import { useNow, useStore } from '../../core/hooks';
import { useRootLive } from '../../core/liveHooks';
import { useStateMachines } from '../../core/machines';
import type { RootLive } from '../../core/rootLive';
import { href, type Params } from '../../core/router';
import { words } from '../../core/userErrors';
import { Loading, NotFound } from '../../ui/NotFound';
import { StateDiagram } from '../../ui/StateDiagram';
import { StatusBadge } from '../../ui/StatusBadge';
import type { MissionDetail, MissionStatus } from './api';
import { AssetList } from './AssetList';
import { ProposalDecision } from './Decision';
import { HopList } from './HopList';
import { missionSource } from './live';
import { MissionHistory } from './MissionHistory';
import { stateCounts } from './store';

export function MissionDetailView({ params }: { params: Params }) {
  const id = params.id ?? '';
  const detail = useRootLive(missionSource(id));
  return detail ? <MissionPage live={detail} /> : null;
}

function MissionPage({ live }: { live: RootLive<MissionDetail> }) {
  const view = useStore(live.store);
  const now = useNow();
  const { root: mission } = view;
  if (view.missing) return <NotFound what="Mission" back="/missions" backLabel="Back to all missions" />;
  if (!mission) return <Loading what="mission" error={view.error} />;
  const status = mission.status.toLowerCase();
  return (
    <article
      className="page mission-detail"
      aria-labelledby="mission-title"
      data-mission-id={mission.id}
      data-status={status}
    >
      <p className="crumbs">
        <a href={href('/missions')}>← All missions</a>
      </p>
      <header className="plan-head">
        <h1 id="mission-title">{mission.title}</h1>
        <p className="question">{mission.goal}</p>
        <div className="status-line">
          <StatusBadge status={mission.status} />
          <span className="meta">
            proposed {formatTime(mission.createdAt)}
            {mission.completedAt ? ` · completed ${formatTime(mission.completedAt)}` : ''}
          </span>
        </div>
        {mission.statusReason ? <MissionReason status={mission.status} reason={mission.statusReason} /> : null}
        {offers(mission.availableActions, 'approveMission') || offers(mission.availableActions, 'rejectMission') ? (
          <div className="review-box">
            <p>
              <strong>This proposal waits for your decision.</strong>
            </p>
            <ProposalDecision
              kind="mission"
              id={mission.id}
              missionId={mission.id}
              label={`mission “${mission.title}”`}
            />
          </div>
        ) : null}
      </header>

      <div className="detail-grid">
        <section aria-labelledby="hops-title" className="detail-steps">
          <h2 id="hops-title">Hops</h2>
          <HopList hops={mission.hops.edges.map((e) => e.node)} now={now} />
        </section>
        <section aria-labelledby="assets-title">
          <h2 id="assets-title">Assets</h2>
          <AssetList assets={mission.assets.edges.map((e) => e.node)} receivedAt={view.receivedAt} now={now} />
        </section>
      </div>

      <section aria-labelledby="machines-title" className="mission-machines">
        <h2 id="machines-title">State machines</h2>
        <MissionMachines mission={mission} />
      </section>

      <section aria-labelledby="history-title">
        <h2 id="history-title">Event history</h2>
        {view.error ? (
          <p className="error" role="alert">
            {view.error}
          </p>
        ) : null}
        <MissionHistory events={view.events} loaded={view.historyLoaded} mission={mission} />
      </section>
    </article>
  );
}

/** Why the mission is in its state: a cancellation or failure stands out; "approved again" is a note. */
function MissionReason({ status, reason }: { status: MissionStatus; reason: string }) {
  const ended = status === 'CANCELLED' || status === 'FAILED';
  return (
    <p className={ended ? 'banner banner-failed' : 'status-reason'} data-testid="mission-reason">
      {ended ? `${status === 'FAILED' ? 'Failed' : 'Cancelled'}: ` : `Why it is ${words(status)}: `}
      {reason}
    </p>
  );
}

const DIAGRAMS = [
  { entity: 'mission', title: 'Mission' },
  { entity: 'hop', title: 'Hops' },
  { entity: 'tool_step', title: 'Tool steps' },
  { entity: 'asset', title: 'Assets' },
] as const;

function MissionMachines({ mission }: { mission: MissionDetail }) {
  const { machines, error } = useStateMachines();
  if (error) return <p className="error">Could not load the state machines: {error}</p>;
  if (!machines) return <p>Loading…</p>;
  const current = stateCounts(mission);
  return (
    <div className="diagram-stack">
      {DIAGRAMS.map(({ entity, title }) => {
        const machine = machines.find((m) => m.domain === 'missions' && m.entity === entity);
        return machine ? <StateDiagram key={entity} machine={machine} current={current[entity]} title={title} /> : null;
      })}
    </div>
  );
}
