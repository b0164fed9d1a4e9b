/**
 * How a progress bar is coloured: by how the thing ended, not by how much of it ended. Failed, cancelled
 * and (partially) rolled back work is never green, however many of its steps are done.
 */
export type ProgressTone = 'ok' | 'bad' | 'undone' | 'running';

const BAD = new Set(['failed', 'cancelled', 'partially_rolled_back', 'expired', 'error']);
const UNDONE = new Set(['rolled_back']);
const OK = new Set(['completed', 'succeeded']);

/** The tone of a bar for a status, and (for workflows) the outcome, which wins when set. */
export function progressTone(status: string, outcome?: string | null): ProgressTone {
  const ended = (outcome ?? status).toLowerCase();
  if (BAD.has(ended)) return 'bad';
  if (UNDONE.has(ended)) return 'undone';
  return OK.has(ended) ? 'ok' : 'running';
}
