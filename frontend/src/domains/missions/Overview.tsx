/**
 * Missions with their status, the hop in progress and their counts, live: the newest page on their own
 * page, the newest few on the overview (whose counts by state cover the rest).
 */
import { formatCount, formatTime } from '../../core/format';
import { rootsInOrder } from '../../core/liveList';
import { href } from '../../core/router';
import { OVERVIEW_FEW } from '../../core/sections';
import { words } from '../../core/userErrors';
import { ListPage, OverviewSection } from '../../ui/ListFrames';
import { StatusBadge } from '../../ui/StatusBadge';
import type { MissionSummary } from './api';
import { useMissions, useNewestMissions } from './context';
import type { MissionsState } from './live';
import { describeCounts, missionCounts } from './store';

type Level = 2 | 3;

/** The missions' section of the overview page (`/`). */
export function MissionsSection() {
  return (
    <OverviewSection id="missions" title="Missions" path="/missions" summary={<Total state={useNewestMissions()} />}>
      <MissionsBody level={3} state={useNewestMissions()} />
    </OverviewSection>
  );
}

/** `/missions`. */
export function MissionsPage() {
  return (
    <ListPage id="missions" title="Missions" summary={<Summary state={useMissions()} />} table="/missions/all">
      <MissionsBody level={2} state={useMissions()} />
    </ListPage>
  );
}

/** How many there are (the server's count): the overview's counts by state say the rest. */
function Total({ state }: { state: MissionsState }) {
  if (!state.loaded || !state.total) return null;
  return (
    <span className="lede" aria-live="polite" data-testid="missions-summary">
      {formatCount(state.total)} mission{state.total === 1 ? '' : 's'}
    </span>
  );
}

/** How many there are; proposed and executing among the newest page shown. */
function Summary({ state }: { state: MissionsState }) {
  const missions = rootsInOrder(state);
  if (!state.loaded || !missions.length) return null;
  const waiting = missions.filter((m) => m.status === 'PROPOSED').length;
  const running = missions.filter((m) => m.status === 'EXECUTING_HOP').length;
  return (
    <span className="lede" aria-live="polite" data-testid="missions-summary">
      {formatCount(state.total)} mission{state.total === 1 ? '' : 's'}
      {waiting ? ` · ${waiting} proposed` : ''}
      {running ? ` · ${running} executing a hop` : ''}
    </span>
  );
}

function MissionsBody({ level, state }: { level: Level; state: MissionsState }) {
  const missions = rootsInOrder(state);
  return (
    <>
      {state.error ? (
        <p className="error" role="alert">
          Live mission updates failed: {state.error}
        </p>
      ) : null}
      {!state.loaded && !state.error ? <p>Loading missions…</p> : null}
      {state.loaded && missions.length === 0 ? (
        <p className="card empty-small" data-testid="missions-empty">
          No missions yet. An agent proposes one with <code>proposeMission</code> (see the tutorial's “Missions”
          page, docs/tutorial/missions.md); it appears here at once.
        </p>
      ) : null}
      {missions.length ? (
        <ul className="plan-list mission-list" aria-label="Missions, newest first">
          {(level === 3 ? missions.slice(0, OVERVIEW_FEW) : missions).map((mission) => (
            <MissionCard key={mission.id} mission={mission} level={level} />
          ))}
        </ul>
      ) : null}
    </>
  );
}

function MissionCard({ mission, level }: { mission: MissionSummary; level: Level }) {
  const Heading = level === 2 ? 'h2' : 'h3';
  const hop = mission.currentHop;
  const status = mission.status.toLowerCase();
  return (
    <li className={`card plan-card mission-card mission-${status}`} data-mission-id={mission.id} data-status={status}>
      <div className="plan-card-main">
        <Heading>
          <a href={href(`/missions/${mission.id}`)}>{mission.title}</a>
        </Heading>
        <p className="question">{mission.goal}</p>
        <p className="meta">Proposed {formatTime(mission.createdAt)}</p>
      </div>
      <div className="plan-card-status">
        <div className="status-line">
          <StatusBadge status={mission.status} />
        </div>
        <p className="current-hop" data-testid="current-hop">
          {hop ? (
            <>
              Hop {hop.sequence} · {hop.name}
              {hop.isFinal ? ' (final)' : ''}: <strong>{words(hop.status)}</strong>
            </>
          ) : (
            'No hop in progress'
          )}
        </p>
        <p className="counts" data-testid="mission-counts">
          {describeCounts(missionCounts(mission))}
        </p>
        {mission.statusReason ? <p className="status-reason">{mission.statusReason}</p> : null}
      </div>
    </li>
  );
}
