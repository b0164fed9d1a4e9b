/** Every research plan as a dense table (`#/plans`): filter, search, sort and page, live. */
import { progressTone } from '../../core/outcome';
import { PlanSummaryDocument, PlanTableDocument, type PlanStatus } from '../../core/graphql.generated';
import { listVariables } from '../../core/tableQuery';
import { TablePage, type Column } from '../../ui/DataTable';
import { ProgressBar } from '../../ui/ProgressBar';
import { flagsColumn, nameColumn, statusColumn, timeColumns } from '../../ui/tableColumns';
import type { PlanSummary } from './api';

const STATUSES: readonly PlanStatus[] = ['PLANNING', 'EXECUTING', 'AWAITING_REVIEW', 'STALLED', 'COMPLETED', 'FAILED'];
const FINAL = new Set<string>(['COMPLETED', 'FAILED']);

const title = (p: PlanSummary) => p.title || p.researchQuestion;

const COLUMNS: readonly Column<PlanSummary>[] = [
  nameColumn('/plans', title),
  statusColumn(),
  {
    label: 'Progress',
    cell: (p) => <ProgressBar percent={p.progressPercent} label={`Progress of ${title(p)}`} tone={progressTone(p.status)} />,
  },
  ...timeColumns<PlanSummary>((p) => (FINAL.has(p.status) ? p.updatedAt : null)),
  flagsColumn((p) => [p.status === 'STALLED' && 'stalled', p.stepCounts.awaitingInput > 0 && 'waiting for review']),
];

export function PlanTable() {
  return (
    <TablePage<PlanSummary>
      title="Research plans"
      path="/plans"
      noun="plans"
      rowAttr="plan-row"
      statuses={STATUSES}
      columns={COLUMNS}
      source={(query) => ({
        rootType: 'plan',
        readPage: (http) =>
          http.request(PlanTableDocument, listVariables<PlanStatus>(query)).then((r) => r.researchPlans),
        readRow: (http, id) => http.request(PlanSummaryDocument, { id }).then((r) => r.researchPlan),
      })}
    />
  );
}
