import { words } from '../core/userErrors';

/**
 * A state as a coloured label; the colour is never the only signal (the text says it). `tone` colours it
 * as another state would be (a workflow COMPLETED by rolling back is not coloured as a success).
 */
export function StatusBadge({ status, tone }: { status: string; tone?: string | null }) {
  const key = status.toLowerCase();
  return (
    <span className={`badge badge-${tone ?? key}`} data-status={key}>
      {words(status)}
    </span>
  );
}
