/** Test doubles: a graphql-ws-like client over an in-memory event log, and a scripted HTTP client. */
import type { GraphQLHttp, Operation, VariablesArg } from '../core/http';
import type { Sink, SubscribePayload, SubscriptionClient } from '../core/resumable';

interface Subscription {
  payload: SubscribePayload;
  sink: Sink;
  active: boolean;
  /** The `after` each (re)subscribe asked for, as sent on the wire. */
  requested: number[];
}

/**
 * Behaves like graphql-ws with a Flightdeck server behind it: each subscribe (and each re-subscribe
 * after `reconnect`) serialises the payload, and the "server" replays every logged event with
 * seq > after, then delivers new ones while connected.
 */
export class FakeLiveServer implements SubscriptionClient {
  log: { seq: number; [key: string]: unknown }[] = [];
  subs: Subscription[] = [];
  connected = true;

  constructor(private field = 'events') {}

  subscribe(payload: SubscribePayload, sink: Sink): () => void {
    const sub: Subscription = { payload, sink, active: true, requested: [] };
    this.subs.push(sub);
    if (this.connected) this.start(sub);
    return () => {
      sub.active = false;
    };
  }

  append(event: { seq: number; [key: string]: unknown }): void {
    this.log.push(event);
    if (!this.connected) return;
    for (const sub of this.subs) if (sub.active) this.send(sub, event);
  }

  drop(): void {
    this.connected = false;
  }

  reconnect(): void {
    this.connected = true;
    for (const sub of this.subs) if (sub.active) this.start(sub);
  }

  /** Deliver an event again, as a misbehaving transport might. */
  resend(seq: number): void {
    const event = this.log.find((e) => e.seq === seq);
    if (event) for (const sub of this.subs) if (sub.active) this.send(sub, event);
  }

  private start(sub: Subscription): void {
    const wire = JSON.parse(JSON.stringify(sub.payload)) as { variables?: { after?: number } };
    const after = wire.variables?.after ?? 0;
    sub.requested.push(after);
    for (const event of this.log) if (event.seq > after) this.send(sub, event);
  }

  private send(sub: Subscription, event: { seq: number }): void {
    sub.sink.next({ data: { [this.field]: event } });
  }
}

/** Answers requests by the operation name in the document; records every request. */
export class ScriptedHttp implements GraphQLHttp {
  calls: { operation: string; variables: Record<string, unknown> }[] = [];

  constructor(private answers: Record<string, (variables: Record<string, unknown>) => unknown>) {}

  async request<R, V>(document: Operation<R, V>, ...[given]: VariablesArg<V>): Promise<R> {
    const operation = /(?:query|mutation)\s+(\w+)/.exec(String(document))?.[1] ?? '?';
    const variables = (given ?? {}) as Record<string, unknown>;
    this.calls.push({ operation, variables });
    const answer = this.answers[operation];
    if (!answer) throw new Error(`no scripted answer for ${operation}`);
    return answer(variables) as R;
  }
}

export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
  await new Promise((resolve) => setTimeout(resolve, 0));
}
