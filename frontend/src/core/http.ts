/** GraphQL over HTTP (POST) with the session's API key; failures become typed errors. */
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';

import { bearer } from './apiKey';

/** An operation of graphql.generated.ts: its text, typed with its result `R` and variables `V`. */
export type Operation<R, V> = DocumentTypeDecoration<R, V>;

/** The variables argument: optional for an operation that takes none. */
export type VariablesArg<V> = V extends Record<string, never> ? [variables?: V] : [variables: V];

/** The server wants a (valid) key: HTTP 401, answering the request sent with `key` (null: none). */
export class AuthRequired extends Error {
  constructor(readonly key: string | null) {
    super('This server needs an API key.');
  }
}

/** A top-level GraphQL error (not a userError): malformed request, FORBIDDEN, ... */
export class RequestFailed extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

export type Fetch = (input: string, init: RequestInit) => Promise<Response>;

export interface GraphQLHttp {
  request<R, V>(operation: Operation<R, V>, ...variables: VariablesArg<V>): Promise<R>;
}

interface Body<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

export function createHttp(url: string, getKey: () => string | null, fetchImpl: Fetch): GraphQLHttp {
  return {
    async request<R, V>(operation: Operation<R, V>, ...[variables]: VariablesArg<V>): Promise<R> {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
      };
      const key = getKey();
      const auth = bearer(key);
      if (auth) headers.authorization = auth;
      const response = await fetchImpl(url, { method: 'POST', headers, body: JSON.stringify({ query: String(operation), variables: variables ?? {} }) });
      if (response.status === 401) throw new AuthRequired(key);
      let body: Body<R>;
      try {
        body = (await response.json()) as Body<R>;
      } catch {
        throw new RequestFailed(`The server answered HTTP ${response.status} without GraphQL.`, undefined);
      }
      const first = body.errors?.[0];
      if (first) throw new RequestFailed(first.message, first.extensions?.code);
      if (body.data == null) throw new RequestFailed(`No data (HTTP ${response.status}).`, undefined);
      return body.data;
    },
  };
}
