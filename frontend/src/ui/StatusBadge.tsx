import { words } from '../core/userErrors';

/** A state as a coloured label; the colour is never the only signal (the text says it). */
export function StatusBadge({ status }: { status: string }) {
  const key = status.toLowerCase();
  return (
    <span className={`badge badge-${key}`} data-status={key}>
      {words(status)}
    </span>
  );
}
