/** The questions an agent asked with its review request. */
export function Questions({ questions }: { questions: readonly string[] | null }) {
  if (!questions?.length) return null;
  return (
    <ul className="questions" aria-label="Questions">
      {questions.map((q) => (
        <li key={q}>{q}</li>
      ))}
    </ul>
  );
}
