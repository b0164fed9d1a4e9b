/**
 * The mission views' result types (seed 004), named after what they show, and the mutation behind each
 * decision. The types are generated from operations.graphql (core/graphql.generated.ts, `npm run codegen`).
 */
import {
  AcceptAssetDocument,
  ApproveHopImplementationDocument,
  ApproveHopPlanDocument,
  ApproveMissionDocument,
  RejectAssetDocument,
  RejectHopImplementationDocument,
  RejectHopPlanDocument,
  RejectMissionDocument,
  StartHopDocument,
  CancelHopDocument,
  type AssetFieldsFragment,
  type AssetStatus,
  type HopStatus,
  type MissionReviewsQuery,
  type MissionStatus,
  type MissionSummaryFieldsFragment,
  type MissionUpdatedSubscription,
  type ToolStepFieldsFragment,
} from '../../core/graphql.generated';
import type { GraphQLHttp } from '../../core/http';
import type { UserError } from '../../core/userErrors';

export type { MissionStatus };

/** Up to this many of each child (hops, tool steps, assets) are read (operations.graphql); the server's cap. */
export const CHILDREN = 100;

/** A mission as the overview lists it: the hop in progress, and every child's state for the counts. */
export type MissionSummary = MissionSummaryFieldsFragment;
export type MissionDetail = MissionUpdatedSubscription['missionUpdated'];
export type HopDetail = MissionDetail['hops']['edges'][number]['node'];
export type ToolStep = ToolStepFieldsFragment;
export type Asset = AssetFieldsFragment;
/** One proposal of the Reviews page's list (missionReviews). */
export type MissionReview = MissionReviewsQuery['missionReviews']['edges'][number]['node'];

/** What a person decides on: each kind has an approve and a reject (with a reason) mutation. */
export type ProposalKind = 'mission' | 'hopPlan' | 'hopImplementation' | 'asset';

/** A decision's answer, whatever was decided on: the subject's and the mission's new states. */
export interface DecisionPayload {
  subject: { id: string; status: MissionStatus | HopStatus | AssetStatus } | null;
  mission: { id: string; status: MissionStatus } | null;
  userErrors: readonly UserError[];
}

type Send = (http: GraphQLHttp, id: string) => Promise<DecisionPayload>;
type SendWithReason = (http: GraphQLHttp, id: string, reason: string) => Promise<DecisionPayload>;

export const ACTS: Record<ProposalKind, { approve: Send; reject: SendWithReason }> = {
  mission: {
    approve: (http, id) =>
      http.request(ApproveMissionDocument, { id }).then(({ approveMission: p }) => ({ ...p, subject: p.mission })),
    reject: (http, id, reason) =>
      http.request(RejectMissionDocument, { id, reason }).then(({ rejectMission: p }) => ({ ...p, subject: p.mission })),
  },
  hopPlan: {
    approve: (http, id) =>
      http.request(ApproveHopPlanDocument, { id }).then(({ approveHopPlan: p }) => ({ ...p, subject: p.hop })),
    reject: (http, id, reason) =>
      http.request(RejectHopPlanDocument, { id, reason }).then(({ rejectHopPlan: p }) => ({ ...p, subject: p.hop })),
  },
  hopImplementation: {
    approve: (http, id) =>
      http
        .request(ApproveHopImplementationDocument, { id })
        .then(({ approveHopImplementation: p }) => ({ ...p, subject: p.hop })),
    reject: (http, id, reason) =>
      http
        .request(RejectHopImplementationDocument, { id, reason })
        .then(({ rejectHopImplementation: p }) => ({ ...p, subject: p.hop })),
  },
  asset: {
    approve: (http, id) =>
      http.request(AcceptAssetDocument, { id }).then(({ acceptAsset: p }) => ({ ...p, subject: p.asset })),
    reject: (http, id, reason) =>
      http.request(RejectAssetDocument, { id, reason }).then(({ rejectAsset: p }) => ({ ...p, subject: p.asset })),
  },
};

/** "User starts hop execution" (seed 004): a reviewer's act, offered once the implementation is approved. */
export const startHop: Send = (http, id) =>
  http.request(StartHopDocument, { id }).then(({ startHop: p }) => ({ ...p, subject: p.hop }));

/** "User cancels" a hop (seed 004), with the reason the agent reads; its unfinished tool steps go with it. */
export const cancelHop: SendWithReason = (http, id, reason) =>
  http.request(CancelHopDocument, { id, reason }).then(({ cancelHop: p }) => ({ ...p, subject: p.hop }));
