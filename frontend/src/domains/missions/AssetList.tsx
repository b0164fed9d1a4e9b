/** A mission's assets: state, a live countdown to expiresAt, and accept / reject while proposed. */
import { offers } from '../../core/actions';
import { formatTime } from '../../core/format';
import { StatusBadge } from '../../ui/StatusBadge';
import type { Asset } from './api';
import { ProposalDecision } from './Decision';
import { describeTtl, ttlDeadline } from './ttl';

interface Props {
  assets: readonly Asset[];
  /** When the snapshot these came with arrived (this browser's clock). */
  receivedAt: number;
  now: number;
}

export function AssetList({ assets, receivedAt, now }: Props) {
  if (!assets.length) {
    return (
      <p className="card empty-small">
        No assets yet. The agent proposes them with <code>proposeAsset</code>, optionally with a TTL.
      </p>
    );
  }
  return (
    <ul className="assets" aria-label="Assets">
      {assets.map((asset) => (
        <AssetItem key={asset.id} asset={asset} receivedAt={receivedAt} now={now} />
      ))}
    </ul>
  );
}

function AssetItem({ asset, receivedAt, now }: { asset: Asset; receivedAt: number; now: number }) {
  const status = asset.status.toLowerCase();
  const ttl = describeTtl(asset, ttlDeadline(asset, receivedAt), now);
  return (
    <li className={`card asset asset-${status}`} data-asset-id={asset.id} data-status={status}>
      <div className="timeline-head">
        <h3>{asset.name}</h3>
        <StatusBadge status={asset.status} />
        {asset.mediaType ? <span className="meta">{asset.mediaType}</span> : null}
      </div>
      <p
        className={`ttl ttl-${ttl.phase}${ttl.urgent ? ' ttl-urgent' : ''}`}
        data-testid="asset-ttl"
        data-phase={ttl.phase}
      >
        {ttl.text}
        {asset.expiresAt ? <span className="meta"> (at {formatTime(asset.expiresAt)})</span> : null}
      </p>
      {asset.description ? <p className="hint">{asset.description}</p> : null}
      {asset.statusReason ? <p className={`status-reason status-reason-${status}`}>{asset.statusReason}</p> : null}
      {asset.content ? (
        <details>
          <summary>Content</summary>
          <pre className="json">{asset.content}</pre>
        </details>
      ) : null}
      {(offers(asset.availableActions, 'acceptAsset') || offers(asset.availableActions, 'rejectAsset')) && ttl.phase !== 'due' ? (
        <ProposalDecision kind="asset" id={asset.id} missionId={asset.missionId} label={`asset “${asset.name}”`} />
      ) : null}
    </li>
  );
}
