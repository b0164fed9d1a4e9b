/** Every workflow as a dense table (`#/workflows/all`): filter, search, sort and page, live. */
import { WorkflowRowDocument, WorkflowTableDocument, type WorkflowRowFieldsFragment, type WorkflowStatus } from '../../core/graphql.generated';
import { listVariables } from '../../core/tableQuery';
import { TablePage, type Column } from '../../ui/DataTable';
import { flagsColumn, nameColumn, statusColumn, timeColumns } from '../../ui/tableColumns';

type Row = WorkflowRowFieldsFragment;

const STATUSES: readonly WorkflowStatus[] = ['IDLE', 'QUEUED', 'EXECUTING', 'BLOCKED', 'COMPENSATING', 'COMPLETED', 'FAILED'];

function stepsDone(w: Row): string {
  const c = w.stepCounts;
  const total = c.pending + c.running + c.completed + c.failed + c.skipped;
  return `${c.completed + c.skipped + c.failed} of ${total} steps`;
}

const COLUMNS: readonly Column<Row>[] = [
  nameColumn('/workflows', (w) => w.name),
  statusColumn((w) => (w.outcome ? w.outcome.toLowerCase() : null)),
  { label: 'Progress', cell: stepsDone },
  ...timeColumns<Row>(
    (w) => w.completedAt ?? null,
    (w) => w.startedAt ?? null,
  ),
  flagsColumn((w) => [w.status === 'BLOCKED' && 'waiting for review', w.outcome ? w.outcome.toLowerCase().replaceAll('_', ' ') : false]),
];

export function WorkflowTable() {
  return (
    <TablePage<Row>
      title="All workflows"
      path="/workflows/all"
      noun="workflows"
      rowAttr="workflow-row"
      statuses={STATUSES}
      columns={COLUMNS}
      source={(query) => ({
        rootType: 'workflow',
        readPage: (http) => http.request(WorkflowTableDocument, listVariables<WorkflowStatus>(query)).then((r) => r.workflows),
        readRow: (http, id) => http.request(WorkflowRowDocument, { id }).then((r) => r.workflow),
      })}
    />
  );
}
