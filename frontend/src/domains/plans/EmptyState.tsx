/** What a new user sees before any plan exists: where plans come from, and the tour to try it. */
const EXAMPLE = `mutation {
  createResearchPlan(input: {
    researchQuestion: "What limits lithium battery life in cold weather?"
    steps: [
      { stepType: SEARCH,     instructions: "Find recent reviews and datasets." }
      { stepType: CHECKPOINT, instructions: "Ask the user which chemistry matters." }
      { stepType: SYNTHESIZE, instructions: "Write the findings." }
    ]
  }) { plan { id status } userErrors { code message } }
}`;

export function EmptyState() {
  return (
    <section className="card empty" aria-labelledby="empty-title" data-testid="empty-state">
      <h3 id="empty-title">No research plans yet</h3>
      <p>
        Agents create plans through the GraphQL API, and each one appears here the moment it is created — no reload
        needed. To see it happen, follow the tutorial's <strong>“Research plans”</strong> page
        (docs/tutorial/plans.md):
      </p>
      <ol>
        <li>
          Open <a href="/graphql">GraphiQL</a> (it runs on this server).
        </li>
        <li>Paste the mutation below and run it. Come back to this tab: the plan is already listed.</li>
        <li>
          Continue with the tour's <code>startNextStep</code>, <code>submitStepResult</code> and{' '}
          <code>requestUserReview</code>; reviews show up under <a href="#/reviews">Reviews</a>.
        </li>
      </ol>
      <pre className="code" aria-label="Example mutation">
        <code>{EXAMPLE}</code>
      </pre>
    </section>
  );
}
