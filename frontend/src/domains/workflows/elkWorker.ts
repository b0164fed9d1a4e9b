/**
 * ELK in a Web Worker: a large workflow's layout takes hundreds of milliseconds of CPU, which on the main
 * thread would freeze the page. Each message is `{ id, graph }`; the answer `{ id, placed }` or
 * `{ id, error }`.
 */
import ELK from 'elkjs/lib/elk.bundled.js';
import type { ElkNode } from 'elkjs/lib/elk.bundled.js';

const elk = new ELK();
const scope = self as unknown as {
  onmessage: ((event: MessageEvent<{ id: number; graph: ElkNode }>) => void) | null;
  postMessage(message: unknown): void;
};

// Assigned after the import: the bundle's own handler (for elkjs's fake worker) is replaced.
scope.onmessage = (event) => {
  const { id, graph } = event.data;
  elk.layout(graph).then(
    (placed) => scope.postMessage({ id, placed }),
    (error: unknown) => scope.postMessage({ id, error: error instanceof Error ? error.message : String(error) }),
  );
};
