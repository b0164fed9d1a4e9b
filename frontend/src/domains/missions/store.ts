/** Pure state for the mission views: the counts shown. */
import type { MissionDetail, MissionSummary } from './api';

export interface MissionCounts {
  hops: number;
  hopsCompleted: number;
  /** Of the hop in progress, cancelled ones left out. */
  steps: number;
  stepsCompleted: number;
  assets: number;
  assetsReady: number;
  assetsExpired: number;
}

function count<S extends string>(nodes: readonly { node: { status: S } }[], status: S): number {
  return nodes.filter((e) => e.node.status === status).length;
}

export function missionCounts(mission: MissionSummary): MissionCounts {
  const steps = mission.currentHop?.toolSteps;
  return {
    hops: mission.hops.totalCount,
    hopsCompleted: count(mission.hops.edges, 'COMPLETED'),
    steps: steps?.totalCount ?? 0,
    stepsCompleted: steps ? count(steps.edges, 'COMPLETED') : 0,
    assets: mission.assets.totalCount,
    assetsReady: count(mission.assets.edges, 'READY'),
    assetsExpired: count(mission.assets.edges, 'EXPIRED'),
  };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** "1 of 2 hops completed · 0 of 3 tool steps done · 2 assets (1 ready, 1 expired)". */
export function describeCounts(c: MissionCounts): string {
  const parts = [c.hops ? `${c.hopsCompleted} of ${plural(c.hops, 'hop')} completed` : 'no hops yet'];
  if (c.steps) parts.push(`${c.stepsCompleted} of ${plural(c.steps, 'tool step')} done`);
  if (c.assets) {
    const detail = [c.assetsReady ? `${c.assetsReady} ready` : '', c.assetsExpired ? `${c.assetsExpired} expired` : '']
      .filter(Boolean)
      .join(', ');
    parts.push(`${plural(c.assets, 'asset')}${detail ? ` (${detail})` : ''}`);
  }
  return parts.join(' · ');
}

/** How many of the mission's entities are in each state, per machine (for the diagrams' highlights). */
export function stateCounts(
  mission: MissionDetail,
): Record<'mission' | 'hop' | 'tool_step' | 'asset', Record<string, number>> {
  const tally = (statuses: readonly string[]) => {
    const counts: Record<string, number> = {};
    for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
    return counts;
  };
  const hops = mission.hops.edges.map((e) => e.node);
  return {
    mission: { [mission.status]: 1 },
    hop: tally(hops.map((h) => h.status)),
    tool_step: tally(hops.flatMap((h) => h.toolSteps.edges.map((e) => e.node.status))),
    asset: tally(mission.assets.edges.map((e) => e.node.status)),
  };
}
