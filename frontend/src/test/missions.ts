/** Builders for mission-domain test data. */
import type { LoggedEvent } from '../core/events';
import type { Asset, HopDetail, MissionDetail, MissionSummary, ToolStep } from '../domains/missions/api';

const nodes = <T>(items: T[]) => ({ totalCount: items.length, edges: items.map((node) => ({ node })) });

export function summary(id: string, over: Partial<MissionSummary> = {}): MissionSummary {
  return {
    id,
    title: `mission ${id}`,
    goal: 'Find out why.',
    status: 'PROPOSED',
    statusReason: null,
    createdAt: `2026-01-01T00:00:0${id}Z`,
    updatedAt: '2026-01-01T00:00:00Z',
    completedAt: null,
    currentHop: null,
    hops: nodes([]),
    assets: nodes([]),
    ...over,
  };
}

export function statuses<S extends string>(...list: S[]) {
  return nodes(list.map((status) => ({ status })));
}

export function toolStep(id: string, over: Partial<ToolStep> = {}): ToolStep {
  return {
    id,
    position: 1,
    name: `step ${id}`,
    description: '',
    toolName: 'web_search',
    parameters: { query: 'x' },
    result: null,
    status: 'READY_TO_EXECUTE',
    statusReason: null,
    startedAt: null,
    completedAt: null,
    updatedAt: '2026-01-01T00:00:00Z',
    ...over,
  };
}

export function hop(id: string, steps: ToolStep[] = [], over: Partial<HopDetail> = {}): HopDetail {
  return {
    id,
    missionId: 'm',
    sequence: 1,
    name: `hop ${id}`,
    plan: 'Search.',
    isFinal: false,
    status: 'PLAN_PROPOSED',
    statusReason: null,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    startedAt: null,
    completedAt: null,
    availableActions: [],
    toolSteps: nodes(steps),
    ...over,
  };
}

export function asset(id: string, over: Partial<Asset> = {}): Asset {
  return {
    id,
    missionId: 'm',
    name: `asset ${id}`,
    description: '',
    mediaType: null,
    content: null,
    status: 'PROPOSED',
    statusReason: null,
    expiresAt: null,
    expiresInSeconds: null,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    availableActions: [],
    ...over,
  };
}

export function detail(hops: HopDetail[], assets: Asset[], over: Partial<MissionDetail> = {}): MissionDetail {
  return {
    id: 'm',
    title: 'Cold batteries',
    goal: 'Explain.',
    status: 'EXECUTING_HOP',
    statusReason: null,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    completedAt: null,
    availableActions: [],
    hops: nodes(hops),
    assets: nodes(assets),
    ...over,
  };
}

/** The count `missionReviews` answers for the nav badge. */
export function reviewCount(totalCount: number) {
  return { missionReviews: { totalCount } };
}

export function missionEvent(over: Partial<LoggedEvent> = {}): LoggedEvent {
  return {
    seq: 1,
    kind: 'mission_transitioned',
    entityType: 'mission',
    entityId: 'm',
    rootType: 'mission',
    rootId: 'm',
    fromState: null,
    toState: null,
    actor: 'agent',
    data: null,
    createdAt: '2026-01-01T00:00:00Z',
    ...over,
  };
}
