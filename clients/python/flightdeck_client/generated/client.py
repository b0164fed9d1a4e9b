from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any, Optional, Union

from .accept_asset import AcceptAsset
from .approve_hop_implementation import ApproveHopImplementation
from .approve_hop_plan import ApproveHopPlan
from .approve_mission import ApproveMission
from .approve_workflow_step import ApproveWorkflowStep
from .async_base_client import AsyncBaseClient
from .base_model import UNSET, UnsetType
from .cancel_hop import CancelHop
from .cancel_mission import CancelMission
from .cancel_workflow import CancelWorkflow
from .claim_workflow_step import ClaimWorkflowStep
from .claim_workflow_steps import ClaimWorkflowSteps
from .complete_asset_processing import CompleteAssetProcessing
from .complete_skill_execution import CompleteSkillExecution
from .complete_tool_step import CompleteToolStep
from .complete_workflow_compensation import CompleteWorkflowCompensation
from .complete_workflow_step import CompleteWorkflowStep
from .complete_workflow_steps import CompleteWorkflowSteps
from .configure_tool_step import ConfigureToolStep
from .create_research_plan import CreateResearchPlan
from .create_workflow import CreateWorkflow
from .create_workflow_from_yaml import CreateWorkflowFromYaml
from .decision import Decision
from .decision_inbox import DecisionInbox
from .decision_policies import DecisionPolicies
from .decisions_about import DecisionsAbout
from .enums import (
    DecisionKind,
    DecisionScope,
    MissionStatus,
    PlanStatus,
    UserDecision,
    WorkflowErrorCategory,
    WorkflowStatus,
)
from .events import Events
from .fail_asset import FailAsset
from .fail_hop_implementation import FailHopImplementation
from .fail_plan import FailPlan
from .fail_tool_step import FailToolStep
from .fail_workflow_compensation import FailWorkflowCompensation
from .fail_workflow_step import FailWorkflowStep
from .follow_events import FollowEvents
from .follow_stall_alerts import FollowStallAlerts
from .get_plan_status import GetPlanStatus
from .heartbeat_workflow_step import HeartbeatWorkflowStep
from .input_types import (
    CreateResearchPlanInput,
    CreateWorkflowInput,
    DecisionTermsInput,
    EventFilter,
    ListFilter,
    ListOrderBy,
    MissionReviewFilter,
    ModifyPlanInput,
    ProposeAssetInput,
    ProposeHopImplementationInput,
    ProposeHopInput,
    ProposeMissionInput,
    RegisterToolInput,
    ReviewInboxFilter,
    StepCompletionInput,
    SubmitStepResultInput,
)
from .latest_seq import LatestSeq
from .mission import Mission
from .mission_review_inbox import MissionReviewInbox
from .mission_reviews import MissionReviews
from .mission_updated import MissionUpdated
from .missions import Missions
from .modify_plan import ModifyPlan
from .propose_asset import ProposeAsset
from .propose_hop import ProposeHop
from .propose_hop_implementation import ProposeHopImplementation
from .propose_mission import ProposeMission
from .register_tool import RegisterTool
from .reject_asset import RejectAsset
from .reject_hop_implementation import RejectHopImplementation
from .reject_hop_plan import RejectHopPlan
from .reject_mission import RejectMission
from .reject_workflow_step import RejectWorkflowStep
from .remove_decision_policy import RemoveDecisionPolicy
from .request_user_review import RequestUserReview
from .rerun_workflow import RerunWorkflow
from .research_context import ResearchContext
from .research_plan import ResearchPlan
from .research_plan_updated import ResearchPlanUpdated
from .research_plans import ResearchPlans
from .resume_session import ResumeSession
from .retry_asset import RetryAsset
from .retry_hop import RetryHop
from .retry_step import RetryStep
from .retry_tool_step import RetryToolStep
from .review_inbox import ReviewInbox
from .select_tool import SelectTool
from .set_decision_policy import SetDecisionPolicy
from .set_decision_terms import SetDecisionTerms
from .stall_alerts import StallAlerts
from .start_asset_processing import StartAssetProcessing
from .start_hop import StartHop
from .start_next_step import StartNextStep
from .start_skill_execution import StartSkillExecution
from .start_workflow import StartWorkflow
from .step_context import StepContext
from .store_research_output import StoreResearchOutput
from .submit_step_result import SubmitStepResult
from .submit_user_decision import SubmitUserDecision
from .tools import Tools
from .work_available import WorkAvailable
from .workflow import Workflow
from .workflow_detail import WorkflowDetail
from .workflow_step import WorkflowStep
from .workflow_steps_awaiting_review import WorkflowStepsAwaitingReview
from .workflow_updated import WorkflowUpdated
from .workflows import Workflows


def gql(q: str) -> str:
    return q


class FlightdeckGraphQL(AsyncBaseClient):
    async def decision_inbox(
        self,
        mine: Union[Optional[bool], UnsetType] = UNSET,
        kind: Union[Optional[DecisionKind], UnsetType] = UNSET,
        first: Union[Optional[int], UnsetType] = UNSET,
        after: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> DecisionInbox:
        query = gql("""
            query DecisionInbox($mine: Boolean, $kind: DecisionKind, $first: Int, $after: String) {
              decisionInbox(mine: $mine, kind: $kind, first: $first, after: $after) {
                edges {
                  cursor
                  node {
                    ...DecisionFields
                  }
                }
                pageInfo {
                  hasNextPage
                  endCursor
                }
                totalCount
              }
            }

            fragment DecisionFields on Decision {
              id
              kind
              status
              subjectType
              subjectId
              rootType
              rootId
              assignee
              defaultOutcome
              deadlineAt
              escalateAt
              escalationRole
              escalatedAt
              outcome
              statusReason
              createdAt
              closedAt
            }
            """)
        variables: dict[str, object] = {
            "mine": mine,
            "kind": kind,
            "first": first,
            "after": after,
        }
        response = await self.execute(
            query=query, operation_name="DecisionInbox", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return DecisionInbox.model_validate(data)

    async def decision(self, id: str, **kwargs: Any) -> Decision:
        query = gql("""
            query Decision($id: ID!) {
              decision(id: $id) {
                ...DecisionFields
              }
            }

            fragment DecisionFields on Decision {
              id
              kind
              status
              subjectType
              subjectId
              rootType
              rootId
              assignee
              defaultOutcome
              deadlineAt
              escalateAt
              escalationRole
              escalatedAt
              outcome
              statusReason
              createdAt
              closedAt
            }
            """)
        variables: dict[str, object] = {"id": id}
        response = await self.execute(
            query=query, operation_name="Decision", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Decision.model_validate(data)

    async def decisions_about(self, subject_id: str, **kwargs: Any) -> DecisionsAbout:
        query = gql("""
            query DecisionsAbout($subjectId: ID!) {
              decisionsAbout(subjectId: $subjectId) {
                ...DecisionFields
              }
            }

            fragment DecisionFields on Decision {
              id
              kind
              status
              subjectType
              subjectId
              rootType
              rootId
              assignee
              defaultOutcome
              deadlineAt
              escalateAt
              escalationRole
              escalatedAt
              outcome
              statusReason
              createdAt
              closedAt
            }
            """)
        variables: dict[str, object] = {"subjectId": subject_id}
        response = await self.execute(
            query=query, operation_name="DecisionsAbout", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return DecisionsAbout.model_validate(data)

    async def decision_policies(self, **kwargs: Any) -> DecisionPolicies:
        query = gql("""
            query DecisionPolicies {
              decisionPolicies {
                ...DecisionPolicyFields
              }
            }

            fragment DecisionPolicyFields on DecisionPolicy {
              scope
              scopeId
              kind
              deadlineSeconds
              defaultOutcome
              assignee
              escalateAfterSeconds
              escalationRole
              updatedAt
            }
            """)
        variables: dict[str, object] = {}
        response = await self.execute(
            query=query,
            operation_name="DecisionPolicies",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return DecisionPolicies.model_validate(data)

    async def set_decision_policy(
        self,
        scope: DecisionScope,
        terms: DecisionTermsInput,
        scope_id: Union[Optional[str], UnsetType] = UNSET,
        kind: Union[Optional[DecisionKind], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> SetDecisionPolicy:
        query = gql("""
            mutation SetDecisionPolicy($scope: DecisionScope!, $terms: DecisionTermsInput!, $scopeId: String, $kind: DecisionKind) {
              setDecisionPolicy(scope: $scope, terms: $terms, scopeId: $scopeId, kind: $kind) {
                policy {
                  ...DecisionPolicyFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment DecisionPolicyFields on DecisionPolicy {
              scope
              scopeId
              kind
              deadlineSeconds
              defaultOutcome
              assignee
              escalateAfterSeconds
              escalationRole
              updatedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {
            "scope": scope,
            "terms": terms,
            "scopeId": scope_id,
            "kind": kind,
        }
        response = await self.execute(
            query=query,
            operation_name="SetDecisionPolicy",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return SetDecisionPolicy.model_validate(data)

    async def remove_decision_policy(
        self,
        scope: DecisionScope,
        scope_id: Union[Optional[str], UnsetType] = UNSET,
        kind: Union[Optional[DecisionKind], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> RemoveDecisionPolicy:
        query = gql("""
            mutation RemoveDecisionPolicy($scope: DecisionScope!, $scopeId: String, $kind: DecisionKind) {
              removeDecisionPolicy(scope: $scope, scopeId: $scopeId, kind: $kind) {
                removed
                userErrors {
                  ...Problems
                }
              }
            }

            fragment Problems on UserError {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {
            "scope": scope,
            "scopeId": scope_id,
            "kind": kind,
        }
        response = await self.execute(
            query=query,
            operation_name="RemoveDecisionPolicy",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return RemoveDecisionPolicy.model_validate(data)

    async def set_decision_terms(
        self, decision_id: str, terms: DecisionTermsInput, **kwargs: Any
    ) -> SetDecisionTerms:
        query = gql("""
            mutation SetDecisionTerms($decisionId: ID!, $terms: DecisionTermsInput!) {
              setDecisionTerms(decisionId: $decisionId, terms: $terms) {
                decision {
                  ...DecisionFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment DecisionFields on Decision {
              id
              kind
              status
              subjectType
              subjectId
              rootType
              rootId
              assignee
              defaultOutcome
              deadlineAt
              escalateAt
              escalationRole
              escalatedAt
              outcome
              statusReason
              createdAt
              closedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {"decisionId": decision_id, "terms": terms}
        response = await self.execute(
            query=query,
            operation_name="SetDecisionTerms",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return SetDecisionTerms.model_validate(data)

    async def events(
        self,
        root_id: Union[Optional[str], UnsetType] = UNSET,
        after: Union[Optional[int], UnsetType] = UNSET,
        first: Union[Optional[int], UnsetType] = UNSET,
        filter_: Union[Optional[EventFilter], UnsetType] = UNSET,
        newest_first: Union[Optional[bool], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> Events:
        query = gql("""
            query Events($rootId: ID, $after: Int, $first: Int, $filter: EventFilter, $newestFirst: Boolean) {
              events(
                rootId: $rootId
                after: $after
                first: $first
                filter: $filter
                newestFirst: $newestFirst
              ) {
                edges {
                  cursor
                  node {
                    ...EventFields
                  }
                }
                pageInfo {
                  hasNextPage
                  endCursor
                }
                totalCount
              }
            }

            fragment EventFields on Event {
              seq
              kind
              entityType
              entityId
              rootType
              rootId
              fromState
              toState
              actor
              data
              createdAt
            }
            """)
        variables: dict[str, object] = {
            "rootId": root_id,
            "after": after,
            "first": first,
            "filter": filter_,
            "newestFirst": newest_first,
        }
        response = await self.execute(
            query=query, operation_name="Events", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Events.model_validate(data)

    async def follow_events(
        self,
        after: Union[Optional[int], UnsetType] = UNSET,
        filter_: Union[Optional[EventFilter], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> AsyncIterator[FollowEvents]:
        query = gql("""
            subscription FollowEvents($after: Int, $filter: EventFilter) {
              events(after: $after, filter: $filter) {
                ...EventFields
              }
            }

            fragment EventFields on Event {
              seq
              kind
              entityType
              entityId
              rootType
              rootId
              fromState
              toState
              actor
              data
              createdAt
            }
            """)
        variables: dict[str, object] = {"after": after, "filter": filter_}
        async for data in self.execute_ws(
            query=query, operation_name="FollowEvents", variables=variables, **kwargs
        ):
            yield FollowEvents.model_validate(data)

    async def stall_alerts(
        self,
        first: Union[Optional[int], UnsetType] = UNSET,
        after: Union[Optional[str], UnsetType] = UNSET,
        since: Union[Optional[datetime], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> StallAlerts:
        query = gql("""
            query StallAlerts($first: Int, $after: String, $since: DateTime) {
              stallAlerts(first: $first, after: $after, since: $since) {
                edges {
                  cursor
                  node {
                    seq
                    planId
                    steps {
                      stepId
                      runningSeconds
                    }
                    thresholdSeconds
                    detectedAt
                    plan {
                      ...ResearchPlanFields
                    }
                  }
                }
                pageInfo {
                  hasNextPage
                  endCursor
                }
                totalCount
              }
            }

            fragment ResearchPlanFields on ResearchPlan {
              id
              title
              researchQuestion
              status
              outputFormattingNotes
              stallThresholdSeconds
              sessionId
              failureReason
              createdAt
              updatedAt
              completedAt
              progressPercent
            }
            """)
        variables: dict[str, object] = {"first": first, "after": after, "since": since}
        response = await self.execute(
            query=query, operation_name="StallAlerts", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return StallAlerts.model_validate(data)

    async def follow_stall_alerts(
        self, after: Union[Optional[int], UnsetType] = UNSET, **kwargs: Any
    ) -> AsyncIterator[FollowStallAlerts]:
        query = gql("""
            subscription FollowStallAlerts($after: Int) {
              stallAlerts(after: $after) {
                seq
                planId
                steps {
                  stepId
                  runningSeconds
                }
                thresholdSeconds
                detectedAt
                plan {
                  ...ResearchPlanFields
                }
              }
            }

            fragment ResearchPlanFields on ResearchPlan {
              id
              title
              researchQuestion
              status
              outputFormattingNotes
              stallThresholdSeconds
              sessionId
              failureReason
              createdAt
              updatedAt
              completedAt
              progressPercent
            }
            """)
        variables: dict[str, object] = {"after": after}
        async for data in self.execute_ws(
            query=query,
            operation_name="FollowStallAlerts",
            variables=variables,
            **kwargs,
        ):
            yield FollowStallAlerts.model_validate(data)

    async def missions(
        self,
        first: Union[Optional[int], UnsetType] = UNSET,
        after: Union[Optional[str], UnsetType] = UNSET,
        status: Union[Optional[list[MissionStatus]], UnsetType] = UNSET,
        filter_: Union[Optional[ListFilter], UnsetType] = UNSET,
        order_by: Union[Optional[ListOrderBy], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> Missions:
        query = gql("""
            query Missions($first: Int, $after: String, $status: [MissionStatus!], $filter: ListFilter, $orderBy: ListOrderBy) {
              missions(
                first: $first
                after: $after
                status: $status
                filter: $filter
                orderBy: $orderBy
              ) {
                edges {
                  cursor
                  node {
                    ...MissionFields
                  }
                }
                pageInfo {
                  hasNextPage
                  endCursor
                }
                totalCount
              }
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }
            """)
        variables: dict[str, object] = {
            "first": first,
            "after": after,
            "status": status,
            "filter": filter_,
            "orderBy": order_by,
        }
        response = await self.execute(
            query=query, operation_name="Missions", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Missions.model_validate(data)

    async def tools(self, **kwargs: Any) -> Tools:
        query = gql("""
            query Tools {
              tools {
                ...ToolFields
              }
            }

            fragment ToolFields on Tool {
              id
              name
              description
              parameterSchema
              createdAt
              updatedAt
            }
            """)
        variables: dict[str, object] = {}
        response = await self.execute(
            query=query, operation_name="Tools", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Tools.model_validate(data)

    async def mission_reviews(
        self,
        first: Union[Optional[int], UnsetType] = UNSET,
        after: Union[Optional[str], UnsetType] = UNSET,
        filter_: Union[Optional[MissionReviewFilter], UnsetType] = UNSET,
        newest_first: Union[Optional[bool], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> MissionReviews:
        query = gql("""
            query MissionReviews($first: Int, $after: String, $filter: MissionReviewFilter, $newestFirst: Boolean) {
              missionReviews(
                first: $first
                after: $after
                filter: $filter
                newestFirst: $newestFirst
              ) {
                edges {
                  cursor
                  node {
                    kind
                    waitingSince
                    mission {
                      ...MissionFields
                    }
                    hop {
                      ...HopFields
                    }
                    asset {
                      ...AssetFields
                    }
                  }
                }
                pageInfo {
                  hasNextPage
                  endCursor
                }
                totalCount
              }
            }

            fragment AssetFields on Asset {
              id
              missionId
              name
              description
              mediaType
              content
              status
              statusReason
              failedFrom
              expiresAt
              createdAt
              updatedAt
              readyAt
              expiresInSeconds
            }

            fragment HopFields on Hop {
              id
              missionId
              sequence
              name
              plan
              isFinal
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }
            """)
        variables: dict[str, object] = {
            "first": first,
            "after": after,
            "filter": filter_,
            "newestFirst": newest_first,
        }
        response = await self.execute(
            query=query, operation_name="MissionReviews", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return MissionReviews.model_validate(data)

    async def mission_review_inbox(
        self, first: Union[Optional[int], UnsetType] = UNSET, **kwargs: Any
    ) -> MissionReviewInbox:
        query = gql("""
            query MissionReviewInbox($first: Int) {
              missionReviewInbox(first: $first) {
                missions {
                  ...MissionFields
                }
                hopPlans {
                  ...HopFields
                }
                hopImplementations {
                  ...HopFields
                }
                assets {
                  ...AssetFields
                }
              }
            }

            fragment AssetFields on Asset {
              id
              missionId
              name
              description
              mediaType
              content
              status
              statusReason
              failedFrom
              expiresAt
              createdAt
              updatedAt
              readyAt
              expiresInSeconds
            }

            fragment HopFields on Hop {
              id
              missionId
              sequence
              name
              plan
              isFinal
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }
            """)
        variables: dict[str, object] = {"first": first}
        response = await self.execute(
            query=query,
            operation_name="MissionReviewInbox",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return MissionReviewInbox.model_validate(data)

    async def propose_mission(
        self, input: ProposeMissionInput, **kwargs: Any
    ) -> ProposeMission:
        query = gql("""
            mutation ProposeMission($input: ProposeMissionInput!) {
              proposeMission(input: $input) {
                mission {
                  ...MissionFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="ProposeMission", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return ProposeMission.model_validate(data)

    async def approve_mission(self, mission_id: str, **kwargs: Any) -> ApproveMission:
        query = gql("""
            mutation ApproveMission($missionId: ID!) {
              approveMission(missionId: $missionId) {
                mission {
                  ...MissionFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {"missionId": mission_id}
        response = await self.execute(
            query=query, operation_name="ApproveMission", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return ApproveMission.model_validate(data)

    async def reject_mission(
        self, mission_id: str, reason: str, **kwargs: Any
    ) -> RejectMission:
        query = gql("""
            mutation RejectMission($missionId: ID!, $reason: String!) {
              rejectMission(missionId: $missionId, reason: $reason) {
                mission {
                  ...MissionFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {"missionId": mission_id, "reason": reason}
        response = await self.execute(
            query=query, operation_name="RejectMission", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return RejectMission.model_validate(data)

    async def cancel_mission(
        self, mission_id: str, reason: str, **kwargs: Any
    ) -> CancelMission:
        query = gql("""
            mutation CancelMission($missionId: ID!, $reason: String!) {
              cancelMission(missionId: $missionId, reason: $reason) {
                mission {
                  ...MissionFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {"missionId": mission_id, "reason": reason}
        response = await self.execute(
            query=query, operation_name="CancelMission", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return CancelMission.model_validate(data)

    async def propose_hop(self, input: ProposeHopInput, **kwargs: Any) -> ProposeHop:
        query = gql("""
            mutation ProposeHop($input: ProposeHopInput!) {
              proposeHop(input: $input) {
                mission {
                  ...MissionFields
                }
                hop {
                  ...HopFields
                }
                toolSteps {
                  ...ToolStepFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment HopFields on Hop {
              id
              missionId
              sequence
              name
              plan
              isFinal
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment ToolStepFields on ToolStep {
              id
              hopId
              missionId
              position
              name
              description
              toolName
              parameters
              result
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="ProposeHop", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return ProposeHop.model_validate(data)

    async def approve_hop_plan(self, hop_id: str, **kwargs: Any) -> ApproveHopPlan:
        query = gql("""
            mutation ApproveHopPlan($hopId: ID!) {
              approveHopPlan(hopId: $hopId) {
                mission {
                  ...MissionFields
                }
                hop {
                  ...HopFields
                }
                toolSteps {
                  ...ToolStepFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment HopFields on Hop {
              id
              missionId
              sequence
              name
              plan
              isFinal
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment ToolStepFields on ToolStep {
              id
              hopId
              missionId
              position
              name
              description
              toolName
              parameters
              result
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }
            """)
        variables: dict[str, object] = {"hopId": hop_id}
        response = await self.execute(
            query=query, operation_name="ApproveHopPlan", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return ApproveHopPlan.model_validate(data)

    async def reject_hop_plan(
        self, hop_id: str, reason: str, **kwargs: Any
    ) -> RejectHopPlan:
        query = gql("""
            mutation RejectHopPlan($hopId: ID!, $reason: String!) {
              rejectHopPlan(hopId: $hopId, reason: $reason) {
                mission {
                  ...MissionFields
                }
                hop {
                  ...HopFields
                }
                toolSteps {
                  ...ToolStepFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment HopFields on Hop {
              id
              missionId
              sequence
              name
              plan
              isFinal
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment ToolStepFields on ToolStep {
              id
              hopId
              missionId
              position
              name
              description
              toolName
              parameters
              result
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }
            """)
        variables: dict[str, object] = {"hopId": hop_id, "reason": reason}
        response = await self.execute(
            query=query, operation_name="RejectHopPlan", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return RejectHopPlan.model_validate(data)

    async def cancel_hop(self, hop_id: str, reason: str, **kwargs: Any) -> CancelHop:
        query = gql("""
            mutation CancelHop($hopId: ID!, $reason: String!) {
              cancelHop(hopId: $hopId, reason: $reason) {
                mission {
                  ...MissionFields
                }
                hop {
                  ...HopFields
                }
                toolSteps {
                  ...ToolStepFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment HopFields on Hop {
              id
              missionId
              sequence
              name
              plan
              isFinal
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment ToolStepFields on ToolStep {
              id
              hopId
              missionId
              position
              name
              description
              toolName
              parameters
              result
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }
            """)
        variables: dict[str, object] = {"hopId": hop_id, "reason": reason}
        response = await self.execute(
            query=query, operation_name="CancelHop", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return CancelHop.model_validate(data)

    async def propose_hop_implementation(
        self, input: ProposeHopImplementationInput, **kwargs: Any
    ) -> ProposeHopImplementation:
        query = gql("""
            mutation ProposeHopImplementation($input: ProposeHopImplementationInput!) {
              proposeHopImplementation(input: $input) {
                mission {
                  ...MissionFields
                }
                hop {
                  ...HopFields
                }
                toolSteps {
                  ...ToolStepFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment HopFields on Hop {
              id
              missionId
              sequence
              name
              plan
              isFinal
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment ToolStepFields on ToolStep {
              id
              hopId
              missionId
              position
              name
              description
              toolName
              parameters
              result
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query,
            operation_name="ProposeHopImplementation",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return ProposeHopImplementation.model_validate(data)

    async def select_tool(
        self, tool_step_id: str, tool_name: str, **kwargs: Any
    ) -> SelectTool:
        query = gql("""
            mutation SelectTool($toolStepId: ID!, $toolName: String!) {
              selectTool(toolStepId: $toolStepId, toolName: $toolName) {
                mission {
                  ...MissionFields
                }
                hop {
                  ...HopFields
                }
                toolStep {
                  ...ToolStepFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment HopFields on Hop {
              id
              missionId
              sequence
              name
              plan
              isFinal
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment ToolStepFields on ToolStep {
              id
              hopId
              missionId
              position
              name
              description
              toolName
              parameters
              result
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }
            """)
        variables: dict[str, object] = {
            "toolStepId": tool_step_id,
            "toolName": tool_name,
        }
        response = await self.execute(
            query=query, operation_name="SelectTool", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return SelectTool.model_validate(data)

    async def configure_tool_step(
        self, tool_step_id: str, parameters: Any, **kwargs: Any
    ) -> ConfigureToolStep:
        query = gql("""
            mutation ConfigureToolStep($toolStepId: ID!, $parameters: JSON!) {
              configureToolStep(toolStepId: $toolStepId, parameters: $parameters) {
                mission {
                  ...MissionFields
                }
                hop {
                  ...HopFields
                }
                toolStep {
                  ...ToolStepFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment HopFields on Hop {
              id
              missionId
              sequence
              name
              plan
              isFinal
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment ToolStepFields on ToolStep {
              id
              hopId
              missionId
              position
              name
              description
              toolName
              parameters
              result
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }
            """)
        variables: dict[str, object] = {
            "toolStepId": tool_step_id,
            "parameters": parameters,
        }
        response = await self.execute(
            query=query,
            operation_name="ConfigureToolStep",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return ConfigureToolStep.model_validate(data)

    async def approve_hop_implementation(
        self, hop_id: str, **kwargs: Any
    ) -> ApproveHopImplementation:
        query = gql("""
            mutation ApproveHopImplementation($hopId: ID!) {
              approveHopImplementation(hopId: $hopId) {
                mission {
                  ...MissionFields
                }
                hop {
                  ...HopFields
                }
                toolSteps {
                  ...ToolStepFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment HopFields on Hop {
              id
              missionId
              sequence
              name
              plan
              isFinal
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment ToolStepFields on ToolStep {
              id
              hopId
              missionId
              position
              name
              description
              toolName
              parameters
              result
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }
            """)
        variables: dict[str, object] = {"hopId": hop_id}
        response = await self.execute(
            query=query,
            operation_name="ApproveHopImplementation",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return ApproveHopImplementation.model_validate(data)

    async def reject_hop_implementation(
        self, hop_id: str, reason: str, **kwargs: Any
    ) -> RejectHopImplementation:
        query = gql("""
            mutation RejectHopImplementation($hopId: ID!, $reason: String!) {
              rejectHopImplementation(hopId: $hopId, reason: $reason) {
                mission {
                  ...MissionFields
                }
                hop {
                  ...HopFields
                }
                toolSteps {
                  ...ToolStepFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment HopFields on Hop {
              id
              missionId
              sequence
              name
              plan
              isFinal
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment ToolStepFields on ToolStep {
              id
              hopId
              missionId
              position
              name
              description
              toolName
              parameters
              result
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }
            """)
        variables: dict[str, object] = {"hopId": hop_id, "reason": reason}
        response = await self.execute(
            query=query,
            operation_name="RejectHopImplementation",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return RejectHopImplementation.model_validate(data)

    async def fail_hop_implementation(
        self, hop_id: str, reason: str, **kwargs: Any
    ) -> FailHopImplementation:
        query = gql("""
            mutation FailHopImplementation($hopId: ID!, $reason: String!) {
              failHopImplementation(hopId: $hopId, reason: $reason) {
                mission {
                  ...MissionFields
                }
                hop {
                  ...HopFields
                }
                toolSteps {
                  ...ToolStepFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment HopFields on Hop {
              id
              missionId
              sequence
              name
              plan
              isFinal
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment ToolStepFields on ToolStep {
              id
              hopId
              missionId
              position
              name
              description
              toolName
              parameters
              result
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }
            """)
        variables: dict[str, object] = {"hopId": hop_id, "reason": reason}
        response = await self.execute(
            query=query,
            operation_name="FailHopImplementation",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return FailHopImplementation.model_validate(data)

    async def start_hop(self, hop_id: str, **kwargs: Any) -> StartHop:
        query = gql("""
            mutation StartHop($hopId: ID!) {
              startHop(hopId: $hopId) {
                mission {
                  ...MissionFields
                }
                hop {
                  ...HopFields
                }
                toolSteps {
                  ...ToolStepFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment HopFields on Hop {
              id
              missionId
              sequence
              name
              plan
              isFinal
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment ToolStepFields on ToolStep {
              id
              hopId
              missionId
              position
              name
              description
              toolName
              parameters
              result
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }
            """)
        variables: dict[str, object] = {"hopId": hop_id}
        response = await self.execute(
            query=query, operation_name="StartHop", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return StartHop.model_validate(data)

    async def complete_tool_step(
        self,
        tool_step_id: str,
        result: Union[Optional[Any], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> CompleteToolStep:
        query = gql("""
            mutation CompleteToolStep($toolStepId: ID!, $result: JSON) {
              completeToolStep(toolStepId: $toolStepId, result: $result) {
                mission {
                  ...MissionFields
                }
                hop {
                  ...HopFields
                }
                toolStep {
                  ...ToolStepFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment HopFields on Hop {
              id
              missionId
              sequence
              name
              plan
              isFinal
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment ToolStepFields on ToolStep {
              id
              hopId
              missionId
              position
              name
              description
              toolName
              parameters
              result
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }
            """)
        variables: dict[str, object] = {"toolStepId": tool_step_id, "result": result}
        response = await self.execute(
            query=query,
            operation_name="CompleteToolStep",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return CompleteToolStep.model_validate(data)

    async def fail_tool_step(
        self, tool_step_id: str, reason: str, **kwargs: Any
    ) -> FailToolStep:
        query = gql("""
            mutation FailToolStep($toolStepId: ID!, $reason: String!) {
              failToolStep(toolStepId: $toolStepId, reason: $reason) {
                mission {
                  ...MissionFields
                }
                hop {
                  ...HopFields
                }
                toolStep {
                  ...ToolStepFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment HopFields on Hop {
              id
              missionId
              sequence
              name
              plan
              isFinal
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment ToolStepFields on ToolStep {
              id
              hopId
              missionId
              position
              name
              description
              toolName
              parameters
              result
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }
            """)
        variables: dict[str, object] = {"toolStepId": tool_step_id, "reason": reason}
        response = await self.execute(
            query=query, operation_name="FailToolStep", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return FailToolStep.model_validate(data)

    async def retry_tool_step(self, tool_step_id: str, **kwargs: Any) -> RetryToolStep:
        query = gql("""
            mutation RetryToolStep($toolStepId: ID!) {
              retryToolStep(toolStepId: $toolStepId) {
                mission {
                  ...MissionFields
                }
                hop {
                  ...HopFields
                }
                toolStep {
                  ...ToolStepFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment HopFields on Hop {
              id
              missionId
              sequence
              name
              plan
              isFinal
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment ToolStepFields on ToolStep {
              id
              hopId
              missionId
              position
              name
              description
              toolName
              parameters
              result
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }
            """)
        variables: dict[str, object] = {"toolStepId": tool_step_id}
        response = await self.execute(
            query=query, operation_name="RetryToolStep", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return RetryToolStep.model_validate(data)

    async def retry_hop(self, hop_id: str, **kwargs: Any) -> RetryHop:
        query = gql("""
            mutation RetryHop($hopId: ID!) {
              retryHop(hopId: $hopId) {
                mission {
                  ...MissionFields
                }
                hop {
                  ...HopFields
                }
                toolSteps {
                  ...ToolStepFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment HopFields on Hop {
              id
              missionId
              sequence
              name
              plan
              isFinal
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment ToolStepFields on ToolStep {
              id
              hopId
              missionId
              position
              name
              description
              toolName
              parameters
              result
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }
            """)
        variables: dict[str, object] = {"hopId": hop_id}
        response = await self.execute(
            query=query, operation_name="RetryHop", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return RetryHop.model_validate(data)

    async def propose_asset(
        self, input: ProposeAssetInput, **kwargs: Any
    ) -> ProposeAsset:
        query = gql("""
            mutation ProposeAsset($input: ProposeAssetInput!) {
              proposeAsset(input: $input) {
                mission {
                  ...MissionFields
                }
                asset {
                  ...AssetFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment AssetFields on Asset {
              id
              missionId
              name
              description
              mediaType
              content
              status
              statusReason
              failedFrom
              expiresAt
              createdAt
              updatedAt
              readyAt
              expiresInSeconds
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="ProposeAsset", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return ProposeAsset.model_validate(data)

    async def accept_asset(self, asset_id: str, **kwargs: Any) -> AcceptAsset:
        query = gql("""
            mutation AcceptAsset($assetId: ID!) {
              acceptAsset(assetId: $assetId) {
                mission {
                  ...MissionFields
                }
                asset {
                  ...AssetFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment AssetFields on Asset {
              id
              missionId
              name
              description
              mediaType
              content
              status
              statusReason
              failedFrom
              expiresAt
              createdAt
              updatedAt
              readyAt
              expiresInSeconds
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {"assetId": asset_id}
        response = await self.execute(
            query=query, operation_name="AcceptAsset", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return AcceptAsset.model_validate(data)

    async def reject_asset(
        self, asset_id: str, reason: str, **kwargs: Any
    ) -> RejectAsset:
        query = gql("""
            mutation RejectAsset($assetId: ID!, $reason: String!) {
              rejectAsset(assetId: $assetId, reason: $reason) {
                mission {
                  ...MissionFields
                }
                asset {
                  ...AssetFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment AssetFields on Asset {
              id
              missionId
              name
              description
              mediaType
              content
              status
              statusReason
              failedFrom
              expiresAt
              createdAt
              updatedAt
              readyAt
              expiresInSeconds
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {"assetId": asset_id, "reason": reason}
        response = await self.execute(
            query=query, operation_name="RejectAsset", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return RejectAsset.model_validate(data)

    async def start_asset_processing(
        self, asset_id: str, **kwargs: Any
    ) -> StartAssetProcessing:
        query = gql("""
            mutation StartAssetProcessing($assetId: ID!) {
              startAssetProcessing(assetId: $assetId) {
                mission {
                  ...MissionFields
                }
                asset {
                  ...AssetFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment AssetFields on Asset {
              id
              missionId
              name
              description
              mediaType
              content
              status
              statusReason
              failedFrom
              expiresAt
              createdAt
              updatedAt
              readyAt
              expiresInSeconds
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {"assetId": asset_id}
        response = await self.execute(
            query=query,
            operation_name="StartAssetProcessing",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return StartAssetProcessing.model_validate(data)

    async def complete_asset_processing(
        self,
        asset_id: str,
        content: Union[Optional[str], UnsetType] = UNSET,
        media_type: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> CompleteAssetProcessing:
        query = gql("""
            mutation CompleteAssetProcessing($assetId: ID!, $content: String, $mediaType: String) {
              completeAssetProcessing(
                assetId: $assetId
                content: $content
                mediaType: $mediaType
              ) {
                mission {
                  ...MissionFields
                }
                asset {
                  ...AssetFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment AssetFields on Asset {
              id
              missionId
              name
              description
              mediaType
              content
              status
              statusReason
              failedFrom
              expiresAt
              createdAt
              updatedAt
              readyAt
              expiresInSeconds
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {
            "assetId": asset_id,
            "content": content,
            "mediaType": media_type,
        }
        response = await self.execute(
            query=query,
            operation_name="CompleteAssetProcessing",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return CompleteAssetProcessing.model_validate(data)

    async def fail_asset(self, asset_id: str, reason: str, **kwargs: Any) -> FailAsset:
        query = gql("""
            mutation FailAsset($assetId: ID!, $reason: String!) {
              failAsset(assetId: $assetId, reason: $reason) {
                mission {
                  ...MissionFields
                }
                asset {
                  ...AssetFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment AssetFields on Asset {
              id
              missionId
              name
              description
              mediaType
              content
              status
              statusReason
              failedFrom
              expiresAt
              createdAt
              updatedAt
              readyAt
              expiresInSeconds
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {"assetId": asset_id, "reason": reason}
        response = await self.execute(
            query=query, operation_name="FailAsset", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return FailAsset.model_validate(data)

    async def retry_asset(self, asset_id: str, **kwargs: Any) -> RetryAsset:
        query = gql("""
            mutation RetryAsset($assetId: ID!) {
              retryAsset(assetId: $assetId) {
                mission {
                  ...MissionFields
                }
                asset {
                  ...AssetFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment AssetFields on Asset {
              id
              missionId
              name
              description
              mediaType
              content
              status
              statusReason
              failedFrom
              expiresAt
              createdAt
              updatedAt
              readyAt
              expiresInSeconds
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {"assetId": asset_id}
        response = await self.execute(
            query=query, operation_name="RetryAsset", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return RetryAsset.model_validate(data)

    async def register_tool(
        self, input: RegisterToolInput, **kwargs: Any
    ) -> RegisterTool:
        query = gql("""
            mutation RegisterTool($input: RegisterToolInput!) {
              registerTool(input: $input) {
                tool {
                  ...ToolFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment ToolFields on Tool {
              id
              name
              description
              parameterSchema
              createdAt
              updatedAt
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="RegisterTool", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return RegisterTool.model_validate(data)

    async def mission_updated(
        self, id: str, **kwargs: Any
    ) -> AsyncIterator[MissionUpdated]:
        query = gql("""
            subscription MissionUpdated($id: ID!) {
              missionUpdated(id: $id) {
                ...MissionFields
              }
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }
            """)
        variables: dict[str, object] = {"id": id}
        async for data in self.execute_ws(
            query=query, operation_name="MissionUpdated", variables=variables, **kwargs
        ):
            yield MissionUpdated.model_validate(data)

    async def mission(self, id: str, **kwargs: Any) -> Mission:
        query = gql("""
            query Mission($id: ID!) {
              mission(id: $id) {
                ...MissionFields
                currentHop {
                  ...HopFields
                }
                hops(first: 100) {
                  edges {
                    node {
                      ...HopFields
                      toolSteps(first: 100) {
                        edges {
                          node {
                            ...ToolStepFields
                          }
                        }
                        pageInfo {
                          hasNextPage
                          endCursor
                        }
                      }
                    }
                  }
                  pageInfo {
                    hasNextPage
                    endCursor
                  }
                }
                assets(first: 100) {
                  edges {
                    node {
                      ...AssetFields
                    }
                  }
                  pageInfo {
                    hasNextPage
                    endCursor
                  }
                }
              }
            }

            fragment AssetFields on Asset {
              id
              missionId
              name
              description
              mediaType
              content
              status
              statusReason
              failedFrom
              expiresAt
              createdAt
              updatedAt
              readyAt
              expiresInSeconds
            }

            fragment HopFields on Hop {
              id
              missionId
              sequence
              name
              plan
              isFinal
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }

            fragment MissionFields on Mission {
              id
              title
              goal
              status
              statusReason
              createdAt
              updatedAt
              completedAt
            }

            fragment ToolStepFields on ToolStep {
              id
              hopId
              missionId
              position
              name
              description
              toolName
              parameters
              result
              status
              statusReason
              failedFrom
              createdAt
              updatedAt
              startedAt
              completedAt
            }
            """)
        variables: dict[str, object] = {"id": id}
        response = await self.execute(
            query=query, operation_name="Mission", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Mission.model_validate(data)

    async def research_plans(
        self,
        first: Union[Optional[int], UnsetType] = UNSET,
        after: Union[Optional[str], UnsetType] = UNSET,
        status: Union[Optional[list[PlanStatus]], UnsetType] = UNSET,
        filter_: Union[Optional[ListFilter], UnsetType] = UNSET,
        order_by: Union[Optional[ListOrderBy], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> ResearchPlans:
        query = gql("""
            query ResearchPlans($first: Int, $after: String, $status: [PlanStatus!], $filter: ListFilter, $orderBy: ListOrderBy) {
              researchPlans(
                first: $first
                after: $after
                status: $status
                filter: $filter
                orderBy: $orderBy
              ) {
                edges {
                  cursor
                  node {
                    ...ResearchPlanFields
                  }
                }
                pageInfo {
                  hasNextPage
                  endCursor
                }
                totalCount
              }
            }

            fragment ResearchPlanFields on ResearchPlan {
              id
              title
              researchQuestion
              status
              outputFormattingNotes
              stallThresholdSeconds
              sessionId
              failureReason
              createdAt
              updatedAt
              completedAt
              progressPercent
            }
            """)
        variables: dict[str, object] = {
            "first": first,
            "after": after,
            "status": status,
            "filter": filter_,
            "orderBy": order_by,
        }
        response = await self.execute(
            query=query, operation_name="ResearchPlans", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return ResearchPlans.model_validate(data)

    async def get_plan_status(
        self,
        plan_id: str,
        stall_threshold_seconds: Union[Optional[float], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> GetPlanStatus:
        query = gql("""
            query GetPlanStatus($planId: ID!, $stallThresholdSeconds: Float) {
              planStatus(planId: $planId, stallThresholdSeconds: $stallThresholdSeconds) {
                plan {
                  ...ResearchPlanFields
                }
                status
                derivedStatus
                progressPercent
                stalled
                stalledStepIds
                stallThresholdSeconds
                totalSteps
                counts {
                  pending
                  inProgress
                  awaitingInput
                  completed
                  skipped
                  failed
                }
              }
            }

            fragment ResearchPlanFields on ResearchPlan {
              id
              title
              researchQuestion
              status
              outputFormattingNotes
              stallThresholdSeconds
              sessionId
              failureReason
              createdAt
              updatedAt
              completedAt
              progressPercent
            }
            """)
        variables: dict[str, object] = {
            "planId": plan_id,
            "stallThresholdSeconds": stall_threshold_seconds,
        }
        response = await self.execute(
            query=query, operation_name="GetPlanStatus", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return GetPlanStatus.model_validate(data)

    async def research_context(self, plan_id: str, **kwargs: Any) -> ResearchContext:
        query = gql("""
            query ResearchContext($planId: ID!) {
              researchContext(planId: $planId) {
                plan {
                  ...ResearchPlanFields
                }
                steps {
                  ...PlanStepFields
                }
                priorResults {
                  ...PlanStepFields
                }
              }
            }

            fragment PlanStepFields on PlanStep {
              id
              planId
              order
              stepType
              title
              instructions
              status
              resultSummary
              resultData
              confidence
              stepExecutionReport
              outputFormattingNotes
              failureReason
              reviewSummary
              reviewQuestions
              startedAt
              completedAt
              createdAt
              updatedAt
            }

            fragment ResearchPlanFields on ResearchPlan {
              id
              title
              researchQuestion
              status
              outputFormattingNotes
              stallThresholdSeconds
              sessionId
              failureReason
              createdAt
              updatedAt
              completedAt
              progressPercent
            }
            """)
        variables: dict[str, object] = {"planId": plan_id}
        response = await self.execute(
            query=query, operation_name="ResearchContext", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return ResearchContext.model_validate(data)

    async def step_context(self, step_id: str, **kwargs: Any) -> StepContext:
        query = gql("""
            query StepContext($stepId: ID!) {
              stepContext(stepId: $stepId) {
                plan {
                  ...ResearchPlanFields
                }
                step {
                  ...PlanStepFields
                }
                priorSteps {
                  ...PlanStepFields
                }
              }
            }

            fragment PlanStepFields on PlanStep {
              id
              planId
              order
              stepType
              title
              instructions
              status
              resultSummary
              resultData
              confidence
              stepExecutionReport
              outputFormattingNotes
              failureReason
              reviewSummary
              reviewQuestions
              startedAt
              completedAt
              createdAt
              updatedAt
            }

            fragment ResearchPlanFields on ResearchPlan {
              id
              title
              researchQuestion
              status
              outputFormattingNotes
              stallThresholdSeconds
              sessionId
              failureReason
              createdAt
              updatedAt
              completedAt
              progressPercent
            }
            """)
        variables: dict[str, object] = {"stepId": step_id}
        response = await self.execute(
            query=query, operation_name="StepContext", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return StepContext.model_validate(data)

    async def review_inbox(
        self,
        first: Union[Optional[int], UnsetType] = UNSET,
        after: Union[Optional[str], UnsetType] = UNSET,
        filter_: Union[Optional[ReviewInboxFilter], UnsetType] = UNSET,
        newest_first: Union[Optional[bool], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> ReviewInbox:
        query = gql("""
            query ReviewInbox($first: Int, $after: String, $filter: ReviewInboxFilter, $newestFirst: Boolean) {
              reviewInbox(
                first: $first
                after: $after
                filter: $filter
                newestFirst: $newestFirst
              ) {
                edges {
                  cursor
                  node {
                    plan {
                      ...ResearchPlanFields
                    }
                    step {
                      ...PlanStepFields
                    }
                    waitingSince
                  }
                }
                pageInfo {
                  hasNextPage
                  endCursor
                }
                totalCount
              }
            }

            fragment PlanStepFields on PlanStep {
              id
              planId
              order
              stepType
              title
              instructions
              status
              resultSummary
              resultData
              confidence
              stepExecutionReport
              outputFormattingNotes
              failureReason
              reviewSummary
              reviewQuestions
              startedAt
              completedAt
              createdAt
              updatedAt
            }

            fragment ResearchPlanFields on ResearchPlan {
              id
              title
              researchQuestion
              status
              outputFormattingNotes
              stallThresholdSeconds
              sessionId
              failureReason
              createdAt
              updatedAt
              completedAt
              progressPercent
            }
            """)
        variables: dict[str, object] = {
            "first": first,
            "after": after,
            "filter": filter_,
            "newestFirst": newest_first,
        }
        response = await self.execute(
            query=query, operation_name="ReviewInbox", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return ReviewInbox.model_validate(data)

    async def submit_user_decision(
        self,
        step_id: str,
        decision: UserDecision,
        feedback: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> SubmitUserDecision:
        query = gql("""
            mutation SubmitUserDecision($stepId: ID!, $decision: UserDecision!, $feedback: String) {
              submitUserDecision(stepId: $stepId, decision: $decision, feedback: $feedback) {
                plan {
                  ...ResearchPlanFields
                }
                step {
                  ...PlanStepFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment PlanStepFields on PlanStep {
              id
              planId
              order
              stepType
              title
              instructions
              status
              resultSummary
              resultData
              confidence
              stepExecutionReport
              outputFormattingNotes
              failureReason
              reviewSummary
              reviewQuestions
              startedAt
              completedAt
              createdAt
              updatedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment ResearchPlanFields on ResearchPlan {
              id
              title
              researchQuestion
              status
              outputFormattingNotes
              stallThresholdSeconds
              sessionId
              failureReason
              createdAt
              updatedAt
              completedAt
              progressPercent
            }
            """)
        variables: dict[str, object] = {
            "stepId": step_id,
            "decision": decision,
            "feedback": feedback,
        }
        response = await self.execute(
            query=query,
            operation_name="SubmitUserDecision",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return SubmitUserDecision.model_validate(data)

    async def modify_plan(self, input: ModifyPlanInput, **kwargs: Any) -> ModifyPlan:
        query = gql("""
            mutation ModifyPlan($input: ModifyPlanInput!) {
              modifyPlan(input: $input) {
                plan {
                  ...ResearchPlanFields
                }
                affectedStepIds
                userErrors {
                  ...Problems
                }
              }
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment ResearchPlanFields on ResearchPlan {
              id
              title
              researchQuestion
              status
              outputFormattingNotes
              stallThresholdSeconds
              sessionId
              failureReason
              createdAt
              updatedAt
              completedAt
              progressPercent
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="ModifyPlan", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return ModifyPlan.model_validate(data)

    async def retry_step(self, step_id: str, **kwargs: Any) -> RetryStep:
        query = gql("""
            mutation RetryStep($stepId: ID!) {
              retryStep(stepId: $stepId) {
                plan {
                  ...ResearchPlanFields
                }
                step {
                  ...PlanStepFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment PlanStepFields on PlanStep {
              id
              planId
              order
              stepType
              title
              instructions
              status
              resultSummary
              resultData
              confidence
              stepExecutionReport
              outputFormattingNotes
              failureReason
              reviewSummary
              reviewQuestions
              startedAt
              completedAt
              createdAt
              updatedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment ResearchPlanFields on ResearchPlan {
              id
              title
              researchQuestion
              status
              outputFormattingNotes
              stallThresholdSeconds
              sessionId
              failureReason
              createdAt
              updatedAt
              completedAt
              progressPercent
            }
            """)
        variables: dict[str, object] = {"stepId": step_id}
        response = await self.execute(
            query=query, operation_name="RetryStep", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return RetryStep.model_validate(data)

    async def fail_plan(self, plan_id: str, reason: str, **kwargs: Any) -> FailPlan:
        query = gql("""
            mutation FailPlan($planId: ID!, $reason: String!) {
              failPlan(planId: $planId, reason: $reason) {
                plan {
                  ...ResearchPlanFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment ResearchPlanFields on ResearchPlan {
              id
              title
              researchQuestion
              status
              outputFormattingNotes
              stallThresholdSeconds
              sessionId
              failureReason
              createdAt
              updatedAt
              completedAt
              progressPercent
            }
            """)
        variables: dict[str, object] = {"planId": plan_id, "reason": reason}
        response = await self.execute(
            query=query, operation_name="FailPlan", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return FailPlan.model_validate(data)

    async def start_skill_execution(
        self,
        session_id: str,
        skill_name: str,
        output_media_type: Union[Optional[str], UnsetType] = UNSET,
        output_formatting_instructions: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> StartSkillExecution:
        query = gql("""
            mutation StartSkillExecution($sessionId: String!, $skillName: String!, $outputMediaType: String, $outputFormattingInstructions: String) {
              startSkillExecution(
                sessionId: $sessionId
                skillName: $skillName
                outputMediaType: $outputMediaType
                outputFormattingInstructions: $outputFormattingInstructions
              ) {
                skillExecution {
                  ...SkillExecutionFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment SkillExecutionFields on SkillExecution {
              id
              sessionId
              skillName
              status
              planId
              outputMediaType
              outputFormattingInstructions
              resultSummary
              startedAt
              completedAt
            }
            """)
        variables: dict[str, object] = {
            "sessionId": session_id,
            "skillName": skill_name,
            "outputMediaType": output_media_type,
            "outputFormattingInstructions": output_formatting_instructions,
        }
        response = await self.execute(
            query=query,
            operation_name="StartSkillExecution",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return StartSkillExecution.model_validate(data)

    async def complete_skill_execution(
        self,
        skill_execution_id: str,
        result_summary: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> CompleteSkillExecution:
        query = gql("""
            mutation CompleteSkillExecution($skillExecutionId: ID!, $resultSummary: String) {
              completeSkillExecution(
                skillExecutionId: $skillExecutionId
                resultSummary: $resultSummary
              ) {
                skillExecution {
                  ...SkillExecutionFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment SkillExecutionFields on SkillExecution {
              id
              sessionId
              skillName
              status
              planId
              outputMediaType
              outputFormattingInstructions
              resultSummary
              startedAt
              completedAt
            }
            """)
        variables: dict[str, object] = {
            "skillExecutionId": skill_execution_id,
            "resultSummary": result_summary,
        }
        response = await self.execute(
            query=query,
            operation_name="CompleteSkillExecution",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return CompleteSkillExecution.model_validate(data)

    async def store_research_output(
        self,
        plan_id: str,
        content: str,
        media_type: str,
        title: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> StoreResearchOutput:
        query = gql("""
            mutation StoreResearchOutput($planId: ID!, $content: String!, $mediaType: String!, $title: String) {
              storeResearchOutput(
                planId: $planId
                content: $content
                mediaType: $mediaType
                title: $title
              ) {
                output {
                  ...ResearchOutputFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment ResearchOutputFields on ResearchOutput {
              id
              planId
              title
              mediaType
              content
              createdAt
            }
            """)
        variables: dict[str, object] = {
            "planId": plan_id,
            "content": content,
            "mediaType": media_type,
            "title": title,
        }
        response = await self.execute(
            query=query,
            operation_name="StoreResearchOutput",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return StoreResearchOutput.model_validate(data)

    async def research_plan_updated(
        self, id: str, **kwargs: Any
    ) -> AsyncIterator[ResearchPlanUpdated]:
        query = gql("""
            subscription ResearchPlanUpdated($id: ID!) {
              researchPlanUpdated(id: $id) {
                ...ResearchPlanFields
              }
            }

            fragment ResearchPlanFields on ResearchPlan {
              id
              title
              researchQuestion
              status
              outputFormattingNotes
              stallThresholdSeconds
              sessionId
              failureReason
              createdAt
              updatedAt
              completedAt
              progressPercent
            }
            """)
        variables: dict[str, object] = {"id": id}
        async for data in self.execute_ws(
            query=query,
            operation_name="ResearchPlanUpdated",
            variables=variables,
            **kwargs,
        ):
            yield ResearchPlanUpdated.model_validate(data)

    async def create_research_plan(
        self, input: CreateResearchPlanInput, **kwargs: Any
    ) -> CreateResearchPlan:
        query = gql("""
            mutation CreateResearchPlan($input: CreateResearchPlanInput!) {
              createResearchPlan(input: $input) {
                plan {
                  ...ResearchPlanFields
                }
                stepIds
                userErrors {
                  ...Problems
                }
              }
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment ResearchPlanFields on ResearchPlan {
              id
              title
              researchQuestion
              status
              outputFormattingNotes
              stallThresholdSeconds
              sessionId
              failureReason
              createdAt
              updatedAt
              completedAt
              progressPercent
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query,
            operation_name="CreateResearchPlan",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return CreateResearchPlan.model_validate(data)

    async def start_next_step(
        self,
        plan_id: str,
        session_id: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> StartNextStep:
        query = gql("""
            mutation StartNextStep($planId: ID!, $sessionId: String) {
              startNextStep(planId: $planId, sessionId: $sessionId) {
                outcome
                plan {
                  ...ResearchPlanFields
                }
                step {
                  ...PlanStepFields
                }
                inProgressCount
                failedCount
                outputMediaType
                outputFormattingInstructions
                planFormattingNotes
                stepFormattingNotes {
                  stepId
                  order
                  notes
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment PlanStepFields on PlanStep {
              id
              planId
              order
              stepType
              title
              instructions
              status
              resultSummary
              resultData
              confidence
              stepExecutionReport
              outputFormattingNotes
              failureReason
              reviewSummary
              reviewQuestions
              startedAt
              completedAt
              createdAt
              updatedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment ResearchPlanFields on ResearchPlan {
              id
              title
              researchQuestion
              status
              outputFormattingNotes
              stallThresholdSeconds
              sessionId
              failureReason
              createdAt
              updatedAt
              completedAt
              progressPercent
            }
            """)
        variables: dict[str, object] = {"planId": plan_id, "sessionId": session_id}
        response = await self.execute(
            query=query, operation_name="StartNextStep", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return StartNextStep.model_validate(data)

    async def submit_step_result(
        self, input: SubmitStepResultInput, **kwargs: Any
    ) -> SubmitStepResult:
        query = gql("""
            mutation SubmitStepResult($input: SubmitStepResultInput!) {
              submitStepResult(input: $input) {
                plan {
                  ...ResearchPlanFields
                }
                step {
                  ...PlanStepFields
                }
                branchFired {
                  ...BranchingConditionFields
                }
                skippedStepIds
                userErrors {
                  ...Problems
                }
              }
            }

            fragment BranchingConditionFields on BranchingCondition {
              id
              afterStepId
              field
              op
              value
              action
              targetStepId
            }

            fragment PlanStepFields on PlanStep {
              id
              planId
              order
              stepType
              title
              instructions
              status
              resultSummary
              resultData
              confidence
              stepExecutionReport
              outputFormattingNotes
              failureReason
              reviewSummary
              reviewQuestions
              startedAt
              completedAt
              createdAt
              updatedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment ResearchPlanFields on ResearchPlan {
              id
              title
              researchQuestion
              status
              outputFormattingNotes
              stallThresholdSeconds
              sessionId
              failureReason
              createdAt
              updatedAt
              completedAt
              progressPercent
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query,
            operation_name="SubmitStepResult",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return SubmitStepResult.model_validate(data)

    async def request_user_review(
        self,
        step_id: str,
        summary: str,
        questions: Union[Optional[list[str]], UnsetType] = UNSET,
        decision: Union[Optional[DecisionTermsInput], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> RequestUserReview:
        query = gql("""
            mutation RequestUserReview($stepId: ID!, $summary: String!, $questions: [String!], $decision: DecisionTermsInput) {
              requestUserReview(
                stepId: $stepId
                summary: $summary
                questions: $questions
                decision: $decision
              ) {
                plan {
                  ...ResearchPlanFields
                }
                step {
                  ...PlanStepFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment PlanStepFields on PlanStep {
              id
              planId
              order
              stepType
              title
              instructions
              status
              resultSummary
              resultData
              confidence
              stepExecutionReport
              outputFormattingNotes
              failureReason
              reviewSummary
              reviewQuestions
              startedAt
              completedAt
              createdAt
              updatedAt
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment ResearchPlanFields on ResearchPlan {
              id
              title
              researchQuestion
              status
              outputFormattingNotes
              stallThresholdSeconds
              sessionId
              failureReason
              createdAt
              updatedAt
              completedAt
              progressPercent
            }
            """)
        variables: dict[str, object] = {
            "stepId": step_id,
            "summary": summary,
            "questions": questions,
            "decision": decision,
        }
        response = await self.execute(
            query=query,
            operation_name="RequestUserReview",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return RequestUserReview.model_validate(data)

    async def resume_session(
        self, plan_id: str, session_id: str, **kwargs: Any
    ) -> ResumeSession:
        query = gql("""
            mutation ResumeSession($planId: ID!, $sessionId: String!) {
              resumeSession(planId: $planId, sessionId: $sessionId) {
                plan {
                  ...ResearchPlanFields
                }
                resumed
                userErrors {
                  ...Problems
                }
              }
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment ResearchPlanFields on ResearchPlan {
              id
              title
              researchQuestion
              status
              outputFormattingNotes
              stallThresholdSeconds
              sessionId
              failureReason
              createdAt
              updatedAt
              completedAt
              progressPercent
            }
            """)
        variables: dict[str, object] = {"planId": plan_id, "sessionId": session_id}
        response = await self.execute(
            query=query, operation_name="ResumeSession", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return ResumeSession.model_validate(data)

    async def research_plan(self, id: str, **kwargs: Any) -> ResearchPlan:
        query = gql("""
            query ResearchPlan($id: ID!) {
              researchPlan(id: $id) {
                ...ResearchPlanFields
                steps {
                  ...PlanStepFields
                }
                branchingConditions {
                  ...BranchingConditionFields
                }
                outputs {
                  ...ResearchOutputFields
                }
              }
            }

            fragment BranchingConditionFields on BranchingCondition {
              id
              afterStepId
              field
              op
              value
              action
              targetStepId
            }

            fragment PlanStepFields on PlanStep {
              id
              planId
              order
              stepType
              title
              instructions
              status
              resultSummary
              resultData
              confidence
              stepExecutionReport
              outputFormattingNotes
              failureReason
              reviewSummary
              reviewQuestions
              startedAt
              completedAt
              createdAt
              updatedAt
            }

            fragment ResearchOutputFields on ResearchOutput {
              id
              planId
              title
              mediaType
              content
              createdAt
            }

            fragment ResearchPlanFields on ResearchPlan {
              id
              title
              researchQuestion
              status
              outputFormattingNotes
              stallThresholdSeconds
              sessionId
              failureReason
              createdAt
              updatedAt
              completedAt
              progressPercent
            }
            """)
        variables: dict[str, object] = {"id": id}
        response = await self.execute(
            query=query, operation_name="ResearchPlan", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return ResearchPlan.model_validate(data)

    async def create_workflow_from_yaml(
        self, yaml: str, name: Union[Optional[str], UnsetType] = UNSET, **kwargs: Any
    ) -> CreateWorkflowFromYaml:
        query = gql("""
            mutation CreateWorkflowFromYaml($yaml: String!, $name: String) {
              createWorkflowFromYaml(yaml: $yaml, name: $name) {
                workflow {
                  id
                  name
                  status
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment Problems on UserError {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {"yaml": yaml, "name": name}
        response = await self.execute(
            query=query,
            operation_name="CreateWorkflowFromYaml",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return CreateWorkflowFromYaml.model_validate(data)

    async def start_workflow(self, workflow_id: str, **kwargs: Any) -> StartWorkflow:
        query = gql("""
            mutation StartWorkflow($workflowId: ID!) {
              startWorkflow(workflowId: $workflowId) {
                workflow {
                  id
                  status
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment Problems on UserError {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {"workflowId": workflow_id}
        response = await self.execute(
            query=query, operation_name="StartWorkflow", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return StartWorkflow.model_validate(data)

    async def cancel_workflow(
        self, workflow_id: str, reason: str, **kwargs: Any
    ) -> CancelWorkflow:
        query = gql("""
            mutation CancelWorkflow($workflowId: ID!, $reason: String!) {
              cancelWorkflow(workflowId: $workflowId, reason: $reason) {
                workflow {
                  id
                  status
                  outcome
                  failureReason
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment Problems on UserError {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {"workflowId": workflow_id, "reason": reason}
        response = await self.execute(
            query=query, operation_name="CancelWorkflow", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return CancelWorkflow.model_validate(data)

    async def rerun_workflow(self, workflow_id: str, **kwargs: Any) -> RerunWorkflow:
        query = gql("""
            mutation RerunWorkflow($workflowId: ID!) {
              rerunWorkflow(workflowId: $workflowId) {
                workflow {
                  id
                  status
                  rerunOfId
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment Problems on UserError {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {"workflowId": workflow_id}
        response = await self.execute(
            query=query, operation_name="RerunWorkflow", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return RerunWorkflow.model_validate(data)

    async def claim_workflow_step(
        self,
        agent: str,
        workflow_id: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> ClaimWorkflowStep:
        query = gql("""
            mutation ClaimWorkflowStep($agent: String!, $workflowId: ID) {
              claimWorkflowStep(agent: $agent, workflowId: $workflowId) {
                outcome
                reason
                retryAt
                workflow {
                  id
                  status
                }
                step {
                  ...StepFields
                }
                compensation {
                  ...CompensationFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment CompensationFields on WorkflowCompensation {
              id
              workflowId
              stepName
              position
              action
              agent
              status
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment StepFields on WorkflowStep {
              id
              workflowId
              name
              status
              agent
              attempt
              claimedBy
              timeoutAt
              heartbeatTimeoutSeconds
              nextAttemptAt
              output
              progress
              lastError
              lastErrorCategory
            }
            """)
        variables: dict[str, object] = {"agent": agent, "workflowId": workflow_id}
        response = await self.execute(
            query=query,
            operation_name="ClaimWorkflowStep",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return ClaimWorkflowStep.model_validate(data)

    async def claim_workflow_steps(
        self,
        agent: str,
        max_steps: int,
        workflow_id: Union[Optional[str], UnsetType] = UNSET,
        completed: Union[Optional[list[StepCompletionInput]], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> ClaimWorkflowSteps:
        query = gql("""
            mutation ClaimWorkflowSteps($agent: String!, $workflowId: ID, $maxSteps: Int!, $completed: [StepCompletionInput!]) {
              claimWorkflowSteps(
                agent: $agent
                workflowId: $workflowId
                maxSteps: $maxSteps
                completed: $completed
              ) {
                ...ClaimedWork
              }
            }

            fragment ClaimedWork on ClaimWorkflowStepsPayload {
              completed {
                step {
                  id
                  status
                }
                userErrors {
                  ...Problems
                }
              }
              outcome
              reason
              retryAt
              steps {
                ...StepFields
              }
              compensation {
                ...CompensationFields
              }
              userErrors {
                ...Problems
              }
            }

            fragment CompensationFields on WorkflowCompensation {
              id
              workflowId
              stepName
              position
              action
              agent
              status
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment StepFields on WorkflowStep {
              id
              workflowId
              name
              status
              agent
              attempt
              claimedBy
              timeoutAt
              heartbeatTimeoutSeconds
              nextAttemptAt
              output
              progress
              lastError
              lastErrorCategory
            }
            """)
        variables: dict[str, object] = {
            "agent": agent,
            "workflowId": workflow_id,
            "maxSteps": max_steps,
            "completed": completed,
        }
        response = await self.execute(
            query=query,
            operation_name="ClaimWorkflowSteps",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return ClaimWorkflowSteps.model_validate(data)

    async def complete_workflow_step(
        self,
        step_id: str,
        agent: str,
        attempt: Union[Optional[int], UnsetType] = UNSET,
        output: Union[Optional[Any], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> CompleteWorkflowStep:
        query = gql("""
            mutation CompleteWorkflowStep($stepId: ID!, $agent: String!, $attempt: Int, $output: JSON) {
              completeWorkflowStep(
                stepId: $stepId
                agent: $agent
                attempt: $attempt
                output: $output
              ) {
                step {
                  id
                  status
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment Problems on UserError {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {
            "stepId": step_id,
            "agent": agent,
            "attempt": attempt,
            "output": output,
        }
        response = await self.execute(
            query=query,
            operation_name="CompleteWorkflowStep",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return CompleteWorkflowStep.model_validate(data)

    async def complete_workflow_steps(
        self, agent: str, steps: list[StepCompletionInput], **kwargs: Any
    ) -> CompleteWorkflowSteps:
        query = gql("""
            mutation CompleteWorkflowSteps($agent: String!, $steps: [StepCompletionInput!]!) {
              completeWorkflowSteps(agent: $agent, steps: $steps) {
                ...CompletionResults
              }
            }

            fragment CompletionResults on CompleteWorkflowStepsPayload {
              results {
                step {
                  id
                  status
                }
                userErrors {
                  ...Problems
                }
              }
              userErrors {
                ...Problems
              }
            }

            fragment Problems on UserError {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {"agent": agent, "steps": steps}
        response = await self.execute(
            query=query,
            operation_name="CompleteWorkflowSteps",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return CompleteWorkflowSteps.model_validate(data)

    async def fail_workflow_step(
        self,
        step_id: str,
        agent: str,
        category: WorkflowErrorCategory,
        message: str,
        attempt: Union[Optional[int], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> FailWorkflowStep:
        query = gql("""
            mutation FailWorkflowStep($stepId: ID!, $agent: String!, $attempt: Int, $category: WorkflowErrorCategory!, $message: String!) {
              failWorkflowStep(
                stepId: $stepId
                agent: $agent
                attempt: $attempt
                category: $category
                message: $message
              ) {
                step {
                  id
                  status
                  attempt
                  nextAttemptAt
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment Problems on UserError {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {
            "stepId": step_id,
            "agent": agent,
            "attempt": attempt,
            "category": category,
            "message": message,
        }
        response = await self.execute(
            query=query,
            operation_name="FailWorkflowStep",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return FailWorkflowStep.model_validate(data)

    async def heartbeat_workflow_step(
        self,
        step_id: str,
        agent: str,
        attempt: Union[Optional[int], UnsetType] = UNSET,
        progress: Union[Optional[Any], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> HeartbeatWorkflowStep:
        query = gql("""
            mutation HeartbeatWorkflowStep($stepId: ID!, $agent: String!, $attempt: Int, $progress: JSON) {
              heartbeatWorkflowStep(
                stepId: $stepId
                agent: $agent
                attempt: $attempt
                progress: $progress
              ) {
                step {
                  id
                  status
                  timeoutAt
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment Problems on UserError {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {
            "stepId": step_id,
            "agent": agent,
            "attempt": attempt,
            "progress": progress,
        }
        response = await self.execute(
            query=query,
            operation_name="HeartbeatWorkflowStep",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return HeartbeatWorkflowStep.model_validate(data)

    async def complete_workflow_compensation(
        self, compensation_id: str, agent: str, **kwargs: Any
    ) -> CompleteWorkflowCompensation:
        query = gql("""
            mutation CompleteWorkflowCompensation($compensationId: ID!, $agent: String!) {
              completeWorkflowCompensation(compensationId: $compensationId, agent: $agent) {
                compensation {
                  ...CompensationFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment CompensationFields on WorkflowCompensation {
              id
              workflowId
              stepName
              position
              action
              agent
              status
            }

            fragment Problems on UserError {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {
            "compensationId": compensation_id,
            "agent": agent,
        }
        response = await self.execute(
            query=query,
            operation_name="CompleteWorkflowCompensation",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return CompleteWorkflowCompensation.model_validate(data)

    async def fail_workflow_compensation(
        self, compensation_id: str, agent: str, message: str, **kwargs: Any
    ) -> FailWorkflowCompensation:
        query = gql("""
            mutation FailWorkflowCompensation($compensationId: ID!, $agent: String!, $message: String!) {
              failWorkflowCompensation(
                compensationId: $compensationId
                agent: $agent
                message: $message
              ) {
                compensation {
                  ...CompensationFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment CompensationFields on WorkflowCompensation {
              id
              workflowId
              stepName
              position
              action
              agent
              status
            }

            fragment Problems on UserError {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {
            "compensationId": compensation_id,
            "agent": agent,
            "message": message,
        }
        response = await self.execute(
            query=query,
            operation_name="FailWorkflowCompensation",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return FailWorkflowCompensation.model_validate(data)

    async def workflow(self, id: str, **kwargs: Any) -> Workflow:
        query = gql("""
            query Workflow($id: ID!) {
              workflow(id: $id) {
                id
                name
                status
                outcome
                failureReason
              }
            }
            """)
        variables: dict[str, object] = {"id": id}
        response = await self.execute(
            query=query, operation_name="Workflow", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Workflow.model_validate(data)

    async def work_available(
        self,
        agent: str,
        workflow_id: Union[Optional[str], UnsetType] = UNSET,
        after: Union[Optional[int], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> AsyncIterator[WorkAvailable]:
        query = gql("""
            subscription WorkAvailable($agent: String!, $workflowId: ID, $after: Int) {
              workAvailable(agent: $agent, workflowId: $workflowId, after: $after) {
                seq
                workflowId
                reason
              }
            }
            """)
        variables: dict[str, object] = {
            "agent": agent,
            "workflowId": workflow_id,
            "after": after,
        }
        async for data in self.execute_ws(
            query=query, operation_name="WorkAvailable", variables=variables, **kwargs
        ):
            yield WorkAvailable.model_validate(data)

    async def latest_seq(self, **kwargs: Any) -> LatestSeq:
        query = gql("""
            query LatestSeq {
              latestSeq
            }
            """)
        variables: dict[str, object] = {}
        response = await self.execute(
            query=query, operation_name="LatestSeq", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return LatestSeq.model_validate(data)

    async def workflows(
        self,
        first: Union[Optional[int], UnsetType] = UNSET,
        after: Union[Optional[str], UnsetType] = UNSET,
        status: Union[Optional[list[WorkflowStatus]], UnsetType] = UNSET,
        filter_: Union[Optional[ListFilter], UnsetType] = UNSET,
        order_by: Union[Optional[ListOrderBy], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> Workflows:
        query = gql("""
            query Workflows($first: Int, $after: String, $status: [WorkflowStatus!], $filter: ListFilter, $orderBy: ListOrderBy) {
              workflows(
                first: $first
                after: $after
                status: $status
                filter: $filter
                orderBy: $orderBy
              ) {
                edges {
                  cursor
                  node {
                    ...WorkflowFields
                  }
                }
                pageInfo {
                  hasNextPage
                  endCursor
                }
                totalCount
              }
            }

            fragment WorkflowFields on Workflow {
              id
              name
              status
              outcome
              failurePolicy
              timeout
              timeoutSeconds
              timeoutAt
              failureReason
              createdAt
              updatedAt
              queuedAt
              startedAt
              completedAt
              definition
              definitionYaml
            }
            """)
        variables: dict[str, object] = {
            "first": first,
            "after": after,
            "status": status,
            "filter": filter_,
            "orderBy": order_by,
        }
        response = await self.execute(
            query=query, operation_name="Workflows", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Workflows.model_validate(data)

    async def workflow_step(self, id: str, **kwargs: Any) -> WorkflowStep:
        query = gql("""
            query WorkflowStep($id: ID!) {
              workflowStep(id: $id) {
                ...StepFields
              }
            }

            fragment StepFields on WorkflowStep {
              id
              workflowId
              name
              status
              agent
              attempt
              claimedBy
              timeoutAt
              heartbeatTimeoutSeconds
              nextAttemptAt
              output
              progress
              lastError
              lastErrorCategory
            }
            """)
        variables: dict[str, object] = {"id": id}
        response = await self.execute(
            query=query, operation_name="WorkflowStep", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return WorkflowStep.model_validate(data)

    async def workflow_steps_awaiting_review(
        self,
        first: Union[Optional[int], UnsetType] = UNSET,
        after: Union[Optional[str], UnsetType] = UNSET,
        filter_: Union[Optional[ReviewInboxFilter], UnsetType] = UNSET,
        newest_first: Union[Optional[bool], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> WorkflowStepsAwaitingReview:
        query = gql("""
            query WorkflowStepsAwaitingReview($first: Int, $after: String, $filter: ReviewInboxFilter, $newestFirst: Boolean) {
              workflowStepsAwaitingReview(
                first: $first
                after: $after
                filter: $filter
                newestFirst: $newestFirst
              ) {
                edges {
                  cursor
                  node {
                    ...StepFields
                  }
                }
                pageInfo {
                  hasNextPage
                  endCursor
                }
                totalCount
              }
            }

            fragment StepFields on WorkflowStep {
              id
              workflowId
              name
              status
              agent
              attempt
              claimedBy
              timeoutAt
              heartbeatTimeoutSeconds
              nextAttemptAt
              output
              progress
              lastError
              lastErrorCategory
            }
            """)
        variables: dict[str, object] = {
            "first": first,
            "after": after,
            "filter": filter_,
            "newestFirst": newest_first,
        }
        response = await self.execute(
            query=query,
            operation_name="WorkflowStepsAwaitingReview",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return WorkflowStepsAwaitingReview.model_validate(data)

    async def create_workflow(
        self, input: CreateWorkflowInput, **kwargs: Any
    ) -> CreateWorkflow:
        query = gql("""
            mutation CreateWorkflow($input: CreateWorkflowInput!) {
              createWorkflow(input: $input) {
                workflow {
                  ...WorkflowFields
                }
                warnings {
                  code
                  message
                  field
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment WorkflowFields on Workflow {
              id
              name
              status
              outcome
              failurePolicy
              timeout
              timeoutSeconds
              timeoutAt
              failureReason
              createdAt
              updatedAt
              queuedAt
              startedAt
              completedAt
              definition
              definitionYaml
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="CreateWorkflow", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return CreateWorkflow.model_validate(data)

    async def approve_workflow_step(
        self,
        step_id: str,
        comment: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> ApproveWorkflowStep:
        query = gql("""
            mutation ApproveWorkflowStep($stepId: ID!, $comment: String) {
              approveWorkflowStep(stepId: $stepId, comment: $comment) {
                workflow {
                  ...WorkflowFields
                }
                step {
                  ...StepFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment StepFields on WorkflowStep {
              id
              workflowId
              name
              status
              agent
              attempt
              claimedBy
              timeoutAt
              heartbeatTimeoutSeconds
              nextAttemptAt
              output
              progress
              lastError
              lastErrorCategory
            }

            fragment WorkflowFields on Workflow {
              id
              name
              status
              outcome
              failurePolicy
              timeout
              timeoutSeconds
              timeoutAt
              failureReason
              createdAt
              updatedAt
              queuedAt
              startedAt
              completedAt
              definition
              definitionYaml
            }
            """)
        variables: dict[str, object] = {"stepId": step_id, "comment": comment}
        response = await self.execute(
            query=query,
            operation_name="ApproveWorkflowStep",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return ApproveWorkflowStep.model_validate(data)

    async def reject_workflow_step(
        self, step_id: str, reason: str, **kwargs: Any
    ) -> RejectWorkflowStep:
        query = gql("""
            mutation RejectWorkflowStep($stepId: ID!, $reason: String!) {
              rejectWorkflowStep(stepId: $stepId, reason: $reason) {
                workflow {
                  ...WorkflowFields
                }
                step {
                  ...StepFields
                }
                userErrors {
                  ...Problems
                }
              }
            }

            fragment Problems on UserError {
              code
              message
              field
            }

            fragment StepFields on WorkflowStep {
              id
              workflowId
              name
              status
              agent
              attempt
              claimedBy
              timeoutAt
              heartbeatTimeoutSeconds
              nextAttemptAt
              output
              progress
              lastError
              lastErrorCategory
            }

            fragment WorkflowFields on Workflow {
              id
              name
              status
              outcome
              failurePolicy
              timeout
              timeoutSeconds
              timeoutAt
              failureReason
              createdAt
              updatedAt
              queuedAt
              startedAt
              completedAt
              definition
              definitionYaml
            }
            """)
        variables: dict[str, object] = {"stepId": step_id, "reason": reason}
        response = await self.execute(
            query=query,
            operation_name="RejectWorkflowStep",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return RejectWorkflowStep.model_validate(data)

    async def workflow_updated(
        self, id: str, **kwargs: Any
    ) -> AsyncIterator[WorkflowUpdated]:
        query = gql("""
            subscription WorkflowUpdated($id: ID!) {
              workflowUpdated(id: $id) {
                ...WorkflowFields
              }
            }

            fragment WorkflowFields on Workflow {
              id
              name
              status
              outcome
              failurePolicy
              timeout
              timeoutSeconds
              timeoutAt
              failureReason
              createdAt
              updatedAt
              queuedAt
              startedAt
              completedAt
              definition
              definitionYaml
            }
            """)
        variables: dict[str, object] = {"id": id}
        async for data in self.execute_ws(
            query=query, operation_name="WorkflowUpdated", variables=variables, **kwargs
        ):
            yield WorkflowUpdated.model_validate(data)

    async def workflow_detail(self, id: str, **kwargs: Any) -> WorkflowDetail:
        query = gql("""
            query WorkflowDetail($id: ID!) {
              workflow(id: $id) {
                ...WorkflowFields
                steps(first: 100) {
                  edges {
                    node {
                      ...StepFields
                    }
                  }
                  pageInfo {
                    hasNextPage
                    endCursor
                  }
                }
                compensations {
                  ...CompensationFields
                }
              }
            }

            fragment CompensationFields on WorkflowCompensation {
              id
              workflowId
              stepName
              position
              action
              agent
              status
            }

            fragment StepFields on WorkflowStep {
              id
              workflowId
              name
              status
              agent
              attempt
              claimedBy
              timeoutAt
              heartbeatTimeoutSeconds
              nextAttemptAt
              output
              progress
              lastError
              lastErrorCategory
            }

            fragment WorkflowFields on Workflow {
              id
              name
              status
              outcome
              failurePolicy
              timeout
              timeoutSeconds
              timeoutAt
              failureReason
              createdAt
              updatedAt
              queuedAt
              startedAt
              completedAt
              definition
              definitionYaml
            }
            """)
        variables: dict[str, object] = {"id": id}
        response = await self.execute(
            query=query, operation_name="WorkflowDetail", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return WorkflowDetail.model_validate(data)
