/**
 * The Webhooks admin page: the tenant's endpoints — create (the secret is shown once),
 * enable/disable, rotate the secret, delete — and an endpoint's delivery log with each event's attempts,
 * redelivery of one event or a range. Admin keys only; any other key reads why.
 */
import { useCallback, useEffect, useId, useState, type FormEvent } from 'react';

import type { DomainModule } from '../../core/domain';
import { useConnection } from '../../core/connection';
import { formatTime } from '../../core/format';
import {
  CreateWebhookEndpointDocument,
  DeleteWebhookEndpointDocument,
  RotateWebhookSecretDocument,
  UpdateWebhookEndpointDocument,
  WebhookEndpointsDocument,
  type WebhookEndpointFieldsFragment,
  type WebhookTopic,
} from '../../core/graphql.generated';
import { RequestFailed } from '../../core/http';
import { describeFailure, describeUserError, type UserError } from '../../core/userErrors';
import { DeliveryLog } from './DeliveryLog';
import { TOPICS, topicLabel } from './topics';

type Endpoint = WebhookEndpointFieldsFragment;

const REFRESH_MS = 5000;

/** A secret just issued: shown once, for the endpoint it belongs to. */
interface Secret {
  endpointId: string;
  url: string;
  secret: string;
  why: 'created' | 'rotated';
}

function refusal(errors: readonly UserError[]): string | null {
  return errors.length ? errors.map(describeUserError).join(' ') : null;
}

function WebhooksPage() {
  const { http, report } = useConnection();
  const [endpoints, setEndpoints] = useState<Endpoint[] | null>(null);
  const [forbidden, setForbidden] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [secret, setSecret] = useState<Secret | null>(null);
  const [open, setOpen] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      const result = await http.request(WebhookEndpointsDocument);
      setEndpoints(result.webhookEndpoints);
      setError(null);
    } catch (e) {
      report(e);
      if (e instanceof RequestFailed && e.code === 'FORBIDDEN') setForbidden(true);
      else setError(describeFailure(e));
    }
  }, [http, report]);

  // Read again every few seconds: an endpoint's cursor moves as the dispatcher takes events up.
  useEffect(() => {
    if (forbidden) return undefined;
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [load, forbidden]);

  /** Run a mutation; null when it went through, else what to show. */
  async function run(action: () => Promise<readonly UserError[]>): Promise<string | null> {
    try {
      const refused = refusal(await action());
      if (!refused) await load();
      return refused;
    } catch (e) {
      report(e);
      return describeFailure(e);
    }
  }

  if (forbidden) {
    return (
      <section aria-labelledby="webhooks-title" className="page">
        <h1 id="webhooks-title">Webhooks</h1>
        <p className="card" role="alert" data-testid="webhooks-forbidden">
          Webhooks are for admin keys only. This key may not list or change the tenant's endpoints; ask an admin, or
          sign in with a key made by <code>flightdeck keys create --role admin</code>.
        </p>
      </section>
    );
  }

  const selected = endpoints?.find((e) => e.id === open) ?? null;
  return (
    <section aria-labelledby="webhooks-title" className="page">
      <div className="page-head">
        <h1 id="webhooks-title">Webhooks</h1>
        <p className="lede">
          HTTP endpoints that receive this tenant's events, signed the Standard Webhooks way; each event's seq is its{' '}
          <code>webhook-id</code>.
        </p>
      </div>
      {error ? (
        <p className="error" role="alert">
          Could not load the endpoints: {error}
        </p>
      ) : null}
      {secret ? (
        <div className="card" role="status" data-testid="webhook-secret">
          <p>
            The signing secret of <strong>{secret.url}</strong> ({secret.why}). It is shown only now: store it where the
            receiver can read it.
          </p>
          <p>
            <code className="webhook-secret">{secret.secret}</code>
          </p>
          <button type="button" onClick={() => setSecret(null)}>
            I have stored the secret
          </button>
        </div>
      ) : null}
      <CreateForm
        create={async (input) => {
          try {
            const { createWebhookEndpoint: r } = await http.request(CreateWebhookEndpointDocument, { input });
            const refused = refusal(r.userErrors);
            if (!refused && r.endpoint && r.secret) {
              setSecret({ endpointId: r.endpoint.id, url: r.endpoint.url, secret: r.secret, why: 'created' });
              await load();
            }
            return refused;
          } catch (e) {
            report(e);
            return describeFailure(e);
          }
        }}
      />
      <section aria-labelledby="endpoints-title">
        <h2 id="endpoints-title">Endpoints</h2>
        {endpoints === null && !error ? <p>Loading…</p> : null}
        {endpoints?.length === 0 ? <p className="card empty-small">No endpoint yet: add one above.</p> : null}
        <ul className="inbox" aria-label="Webhook endpoints, oldest first">
          {(endpoints ?? []).map((endpoint, i) => (
            <EndpointItem
              key={endpoint.id}
              endpoint={endpoint}
              name={`${endpoint.url}${endpoints?.some((o, j) => j !== i && o.url === endpoint.url) ? ` (#${i + 1})` : ''}`}
              shown={open === endpoint.id}
              onShow={() => setOpen(open === endpoint.id ? null : endpoint.id)}
              run={run}
              onSecret={(s) => setSecret({ endpointId: endpoint.id, url: endpoint.url, secret: s, why: 'rotated' })}
            />
          ))}
        </ul>
      </section>
      {selected ? <DeliveryLog endpoint={selected} /> : null}
    </section>
  );
}

interface CreateInput {
  url: string;
  topics: WebhookTopic[];
  description: string | null;
  enabled: boolean;
}

function CreateForm({ create }: { create(input: CreateInput): Promise<string | null> }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [topics, setTopics] = useState<WebhookTopic[]>([]);
  const [enabled, setEnabled] = useState(true);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const urlId = useId();
  const descriptionId = useId();

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!topics.length) {
      setProblem('Choose at least one topic.');
      return;
    }
    setBusy(true);
    setProblem(null);
    const refused = await create({ url: url.trim(), topics, description: description.trim() || null, enabled });
    setBusy(false);
    setProblem(refused);
    if (!refused) {
      setUrl('');
      setDescription('');
      setTopics([]);
    }
  }

  return (
    <form className="card" aria-labelledby="create-webhook-title" onSubmit={(e) => void submit(e)}>
      <h2 id="create-webhook-title">Add an endpoint</h2>
      <label htmlFor={urlId}>URL (http or https)</label>
      <input id={urlId} type="url" required maxLength={2048} value={url} onChange={(e) => setUrl(e.target.value)} />
      <label htmlFor={descriptionId}>Description (optional)</label>
      <input id={descriptionId} maxLength={200} value={description} onChange={(e) => setDescription(e.target.value)} />
      <fieldset>
        <legend>Topics it receives</legend>
        {TOPICS.map((t) => (
          <label key={t.value} className="topic">
            <input
              type="checkbox"
              checked={topics.includes(t.value)}
              onChange={(e) => setTopics((list) => (e.target.checked ? [...list, t.value] : list.filter((v) => v !== t.value)))}
            />{' '}
            {t.label}
          </label>
        ))}
      </fieldset>
      <label>
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Send deliveries now
        (enabled)
      </label>
      {problem ? (
        <p className="error" role="alert">
          {problem}
        </p>
      ) : null}
      <div className="webhook-controls">
        <button type="submit" disabled={busy}>
          {busy ? 'Adding…' : 'Add the endpoint'}
        </button>
      </div>
    </form>
  );
}

interface ItemProps {
  endpoint: Endpoint;
  /** Unique on the page: names each control of the endpoint. */
  name: string;
  shown: boolean;
  onShow(): void;
  run(action: () => Promise<readonly UserError[]>): Promise<string | null>;
  onSecret(secret: string): void;
}

function EndpointItem({ endpoint, name, shown, onShow, run, onSecret }: ItemProps) {
  const { http } = useConnection();
  const [problem, setProblem] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const headingId = useId();
  const act = async (action: () => Promise<readonly UserError[]>) => setProblem(await run(action));

  return (
    <li className="card" data-webhook-endpoint={endpoint.id} aria-labelledby={headingId}>
      <div className="status-line">
        <h3 id={headingId} className="webhook-url">
          {endpoint.url}
        </h3>
        <span className={`badge ${endpoint.enabled ? 'badge-succeeded' : 'badge-idle'}`} data-testid="endpoint-state">
          {endpoint.enabled ? 'enabled' : 'disabled'}
        </span>
      </div>
      {endpoint.description ? <p>{endpoint.description}</p> : null}
      <p className="meta">
        Topics: {endpoint.topics.map(topicLabel).join(', ')} · taken up to seq {endpoint.cursorSeq} · created{' '}
        {formatTime(endpoint.createdAt)}
        {endpoint.previousSecretUntil ? ` · the previous secret still signs until ${formatTime(endpoint.previousSecretUntil)}` : ''}
      </p>
      <div className="webhook-controls">
        <button type="button" aria-expanded={shown} onClick={onShow}>
          {shown ? 'Hide' : 'Show'} the deliveries<span className="sr-only"> of {name}</span>
        </button>
        <button
          type="button"
          onClick={() =>
            void act(async () => {
              const r = await http.request(UpdateWebhookEndpointDocument, { input: { id: endpoint.id, enabled: !endpoint.enabled } });
              return r.updateWebhookEndpoint.userErrors;
            })
          }
        >
          {endpoint.enabled ? 'Disable' : 'Enable'}
          <span className="sr-only"> {name}</span>
        </button>
        <button
          type="button"
          onClick={() =>
            void act(async () => {
              const r = await http.request(RotateWebhookSecretDocument, { id: endpoint.id });
              if (r.rotateWebhookSecret.secret) onSecret(r.rotateWebhookSecret.secret);
              return r.rotateWebhookSecret.userErrors;
            })
          }
        >
          Rotate the secret<span className="sr-only"> of {name}</span>
        </button>
        {confirming ? (
          <>
            <button
              type="button"
              className="danger"
              onClick={() =>
                void act(async () => {
                  const r = await http.request(DeleteWebhookEndpointDocument, { id: endpoint.id });
                  return r.deleteWebhookEndpoint.userErrors;
                })
              }
            >
              Yes, delete<span className="sr-only"> {name} and its delivery log</span>
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Keep<span className="sr-only"> {name}</span>
            </button>
          </>
        ) : (
          <button type="button" onClick={() => setConfirming(true)}>
            Delete<span className="sr-only"> {name}</span>
          </button>
        )}
      </div>
      {problem ? (
        <p className="error" role="alert">
          {problem}
        </p>
      ) : null}
    </li>
  );
}

export const webhooksDomain: DomainModule = {
  id: 'webhooks',
  views: [{ path: '/webhooks', title: 'Webhooks', component: WebhooksPage }],
  nav: [{ path: '/webhooks', label: 'Webhooks' }],
};
