/** A step's instructions as written, then each piece of user feedback a modify decision appended. */
import { splitFeedback } from './timeline';

export function Instructions({ text }: { text: string }) {
  const { original, feedback } = splitFeedback(text);
  return (
    <div className="instructions">
      <p className="pre">{original}</p>
      {feedback.map((piece, i) => (
        <p key={i} className="feedback">
          <strong>User feedback:</strong> {piece}
        </p>
      ))}
    </div>
  );
}
