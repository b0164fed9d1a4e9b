/** Every mission as a dense table (`#/missions/all`): filter, search, sort and page, live. */
import { MissionRowDocument, MissionTableDocument, type MissionRowFieldsFragment, type MissionStatus } from '../../core/graphql.generated';
import { listVariables } from '../../core/tableQuery';
import { TablePage, type Column } from '../../ui/DataTable';
import { flagsColumn, nameColumn, statusColumn, timeColumns } from '../../ui/tableColumns';

type Row = MissionRowFieldsFragment;

const STATUSES: readonly MissionStatus[] = ['PROPOSED', 'APPROVED', 'BUILDING_HOP', 'HOP_READY', 'EXECUTING_HOP', 'COMPLETED', 'FAILED', 'CANCELLED'];
const ENDED = new Set<string>(['COMPLETED', 'FAILED', 'CANCELLED']);
/** A person decides next: the mission's proposal, or its current hop's plan or implementation. */
const HOP_WAITING = new Set<string>(['PLAN_PROPOSED', 'IMPLEMENTATION_PROPOSED']);

const COLUMNS: readonly Column<Row>[] = [
  nameColumn('/missions', (m) => m.title),
  statusColumn(),
  { label: 'Hops', cell: (m) => `${m.hops.totalCount}${m.currentHop ? ` · current ${m.currentHop.status.toLowerCase().replaceAll('_', ' ')}` : ''}` },
  // Failed and cancelled missions ended too (at their last change), as the server's DURATION order counts them.
  ...timeColumns<Row>((m) => m.completedAt ?? (ENDED.has(m.status) ? m.updatedAt : null)),
  flagsColumn((m) => [(m.status === 'PROPOSED' || HOP_WAITING.has(m.currentHop?.status ?? '')) && 'waiting for review']),
];

export function MissionTable() {
  return (
    <TablePage<Row>
      title="All missions"
      path="/missions/all"
      noun="missions"
      rowAttr="mission-row"
      statuses={STATUSES}
      columns={COLUMNS}
      source={(query) => ({
        rootType: 'mission',
        readPage: (http) => http.request(MissionTableDocument, listVariables<MissionStatus>(query)).then((r) => r.missions),
        readRow: (http, id) => http.request(MissionRowDocument, { id }).then((r) => r.mission),
      })}
    />
  );
}
