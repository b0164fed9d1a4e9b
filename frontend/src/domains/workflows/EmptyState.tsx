/** What a new user sees before any workflow exists: where workflows come from, and a definition to try. */
const EXAMPLE = `mutation {
  createWorkflowFromYaml(yaml: """
metadata: {name: onboarding}
spec:
  failurePolicy: compensate
  steps:
    - {name: create-account, timeout: 5m}
    - {name: approve-welcome, dependsOn: [create-account], approval: true}
    - {name: send-welcome, dependsOn: [approve-welcome], onFailure: skip}
  compensation:
    - {step: create-account, action: Deactivate account, agent: growth-optimizer}
""") { workflow { id status } userErrors { code message } }
}`;

export function WorkflowsEmptyState() {
  return (
    <section className="card empty" aria-labelledby="wf-empty-title" data-testid="workflows-empty-state">
      <h2 id="wf-empty-title">No workflows yet</h2>
      <p>
        Agents define DAG workflows through the GraphQL API, and each one appears here the moment it is created — no
        reload needed. The tutorial's <strong>“Workflows: a DAG that workers pull from”</strong>
        (docs/tutorial/workflows.md) walks through one:
      </p>
      <ol>
        <li>
          Open <a href="/graphql">GraphiQL</a> (it runs on this server) and run the mutation below.
        </li>
        <li>
          Start it with <code>startWorkflow</code>; workers then <code>claimWorkflowStep</code> and report with{' '}
          <code>completeWorkflowStep</code> or <code>failWorkflowStep</code>, and the graph changes as they do.
        </li>
        <li>
          The approval gate waits under <a href="#/reviews">Reviews</a> until someone approves it.
        </li>
      </ol>
      <pre className="code" aria-label="Example mutation">
        <code>{EXAMPLE}</code>
      </pre>
    </section>
  );
}
