from collections.abc import AsyncIterator
from typing import Any, Optional, Union

from .async_base_client import AsyncBaseClient
from .base_model import UNSET, UnsetType
from .claim_workflow_step import ClaimWorkflowStep
from .claim_workflow_steps import ClaimWorkflowSteps
from .complete_workflow_compensation import CompleteWorkflowCompensation
from .complete_workflow_step import CompleteWorkflowStep
from .complete_workflow_steps import CompleteWorkflowSteps
from .create_research_plan import CreateResearchPlan
from .create_workflow_from_yaml import CreateWorkflowFromYaml
from .enums import WorkflowErrorCategory
from .fail_workflow_compensation import FailWorkflowCompensation
from .fail_workflow_step import FailWorkflowStep
from .heartbeat_workflow_step import HeartbeatWorkflowStep
from .input_types import (
    CreateResearchPlanInput,
    StepCompletionInput,
    SubmitStepResultInput,
)
from .latest_seq import LatestSeq
from .request_user_review import RequestUserReview
from .resume_session import ResumeSession
from .start_next_step import StartNextStep
from .start_workflow import StartWorkflow
from .submit_step_result import SubmitStepResult
from .work_available import WorkAvailable
from .workflow import Workflow


def gql(q: str) -> str:
    return q


class FlightdeckGraphQL(AsyncBaseClient):
    async def create_research_plan(
        self, input: CreateResearchPlanInput, **kwargs: Any
    ) -> CreateResearchPlan:
        query = gql("""
            mutation CreateResearchPlan($input: CreateResearchPlanInput!) {
              createResearchPlan(input: $input) {
                plan {
                  id
                  status
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
                  id
                  status
                }
                step {
                  ...PlanStepFields
                }
                outputFormattingInstructions
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
            }

            fragment Problems on UserError {
              code
              message
              field
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
                  id
                  status
                }
                step {
                  ...PlanStepFields
                }
                skippedStepIds
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
            }

            fragment Problems on UserError {
              code
              message
              field
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
        **kwargs: Any,
    ) -> RequestUserReview:
        query = gql("""
            mutation RequestUserReview($stepId: ID!, $summary: String!, $questions: [String!]) {
              requestUserReview(stepId: $stepId, summary: $summary, questions: $questions) {
                plan {
                  id
                  status
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
            }

            fragment Problems on UserError {
              code
              message
              field
            }
            """)
        variables: dict[str, object] = {
            "stepId": step_id,
            "summary": summary,
            "questions": questions,
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
                  id
                  status
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
            """)
        variables: dict[str, object] = {"planId": plan_id, "sessionId": session_id}
        response = await self.execute(
            query=query, operation_name="ResumeSession", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return ResumeSession.model_validate(data)

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
