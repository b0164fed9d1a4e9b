/** The GraphQL documents and result types of the mission views (seed 004). */
import type { UserError } from '../../core/userErrors';

export type MissionStatus =
  'PROPOSED' | 'APPROVED' | 'BUILDING_HOP' | 'HOP_READY' | 'EXECUTING_HOP' | 'COMPLETED' | 'FAILED' | 'CANCELLED';

interface Connection<T> {
  totalCount: number;
  edges: { node: T }[];
}

interface Mission {
  id: string;
  title: string;
  goal: string;
  status: MissionStatus;
  statusReason: string | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
}

/** A mission as the overview lists it: the hop in progress, and every child's state for the counts. */
export interface MissionSummary extends Mission {
  currentHop: {
    id: string;
    sequence: number;
    name: string;
    status: string;
    isFinal: boolean;
    toolSteps: Connection<{ status: string }>;
  } | null;
  hops: Connection<{ status: string }>;
  assets: Connection<{ status: string }>;
}

export interface ToolStep {
  id: string;
  position: number;
  name: string;
  description: string;
  toolName: string | null;
  parameters: unknown;
  result: unknown;
  status: string;
  statusReason: string | null;
  startedAt: string | null;
  completedAt: string | null;
  updatedAt: string;
}

export interface Hop {
  id: string;
  missionId: string;
  sequence: number;
  name: string;
  plan: string;
  isFinal: boolean;
  status: string;
  statusReason: string | null;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  completedAt: string | null;
}

export interface HopDetail extends Hop {
  toolSteps: Connection<ToolStep>;
}

export interface Asset {
  id: string;
  missionId: string;
  name: string;
  description: string;
  mediaType: string | null;
  content: string | null;
  status: string;
  statusReason: string | null;
  expiresAt: string | null;
  /** By the server's clock when the snapshot was taken; null: no TTL. */
  expiresInSeconds: number | null;
  createdAt: string;
  updatedAt: string;
}

export interface MissionDetail extends Mission {
  hops: Connection<HopDetail>;
  assets: Connection<Asset>;
}

export interface MissionInbox {
  missions: Pick<Mission, 'id' | 'title' | 'goal' | 'status' | 'createdAt' | 'updatedAt'>[];
  hopPlans: Hop[];
  hopImplementations: (Hop & { toolSteps: Connection<ToolStep> })[];
  assets: Asset[];
}

/** Up to this many of each child (hops, tool steps, assets) are read; the server caps at 100. */
export const CHILDREN = 100;

const SUMMARY = `id title goal status statusReason createdAt updatedAt completedAt
  currentHop { id sequence name status isFinal toolSteps(first: ${CHILDREN}) { totalCount edges { node { status } } } }
  hops(first: ${CHILDREN}) { totalCount edges { node { status } } }
  assets(first: ${CHILDREN}) { totalCount edges { node { status } } }`;

const HOP = 'id missionId sequence name plan isFinal status statusReason createdAt updatedAt startedAt completedAt';
const TOOL_STEP =
  'id position name description toolName parameters result status statusReason startedAt completedAt updatedAt';
const ASSET =
  'id missionId name description mediaType content status statusReason expiresAt expiresInSeconds createdAt updatedAt';

export const MISSIONS = `query Missions($first: Int!) {
  missions(first: $first) { totalCount edges { node { ${SUMMARY} } } }
}`;

export const MISSION_SUMMARY = `query MissionSummary($id: ID!) { mission(id: $id) { ${SUMMARY} } }`;

export const MISSION_UPDATED = `subscription MissionUpdated($id: ID!) {
  missionUpdated(id: $id) {
    id title goal status statusReason createdAt updatedAt completedAt
    hops(first: ${CHILDREN}) { totalCount edges { node { ${HOP}
      toolSteps(first: ${CHILDREN}, includeCancelled: true) { totalCount edges { node { ${TOOL_STEP} } } } } } }
    assets(first: ${CHILDREN}) { totalCount edges { node { ${ASSET} } } }
  }
}`;

export const MISSION_INBOX = `query MissionInbox($first: Int!) {
  missionReviewInbox(first: $first) {
    missions { id title goal status createdAt updatedAt }
    hopPlans { ${HOP} }
    hopImplementations { ${HOP} toolSteps(first: ${CHILDREN}) { totalCount edges { node { ${TOOL_STEP} } } } }
    assets { ${ASSET} }
  }
}`;

/** What a person decides on: each kind has an approve and a reject (with a reason) mutation. */
export type ProposalKind = 'mission' | 'hopPlan' | 'hopImplementation' | 'asset';

interface Act {
  approve: string;
  reject: string;
  /** The name of the id argument. */
  arg: 'missionId' | 'hopId' | 'assetId';
  /** The payload's own object (mission, hop or asset). */
  subject: 'mission' | 'hop' | 'asset';
}

export const ACTS: Record<ProposalKind, Act> = {
  mission: { approve: 'approveMission', reject: 'rejectMission', arg: 'missionId', subject: 'mission' },
  hopPlan: { approve: 'approveHopPlan', reject: 'rejectHopPlan', arg: 'hopId', subject: 'hop' },
  hopImplementation: {
    approve: 'approveHopImplementation',
    reject: 'rejectHopImplementation',
    arg: 'hopId',
    subject: 'hop',
  },
  asset: { approve: 'acceptAsset', reject: 'rejectAsset', arg: 'assetId', subject: 'asset' },
};

const ERRORS = 'userErrors { code message field entity fromState toState }';

/** The mutation for one decision; the subject and the mission come back with their new states. */
export function decisionMutation(mutation: string, arg: Act['arg'], subject: Act['subject'], reason: boolean): string {
  const vars = reason ? '$id: ID!, $reason: String!' : '$id: ID!';
  const args = reason ? `${arg}: $id, reason: $reason` : `${arg}: $id`;
  const mission = subject === 'mission' ? '' : 'mission { id status }';
  return `mutation Decide(${vars}) { ${mutation}(${args}) { ${subject} { id status } ${mission} ${ERRORS} } }`;
}

export interface DecisionPayload {
  mission?: { id: string; status: string } | null;
  hop?: { id: string; status: string } | null;
  asset?: { id: string; status: string } | null;
  userErrors: UserError[];
}
