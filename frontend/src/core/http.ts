/** GraphQL over HTTP (POST) with the session's API key; failures become typed errors. */
import { bearer } from './apiKey';

/** The server wants a (valid) key: HTTP 401. */
export class AuthRequired extends Error {}

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
  request<T>(query: string, variables?: Record<string, unknown>): Promise<T>;
}

interface Body<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

export function createHttp(url: string, getKey: () => string | null, fetchImpl: Fetch): GraphQLHttp {
  return {
    async request<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
      };
      const auth = bearer(getKey());
      if (auth) headers.authorization = auth;
      const response = await fetchImpl(url, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
      if (response.status === 401) throw new AuthRequired('This server needs an API key.');
      let body: Body<T>;
      try {
        body = (await response.json()) as Body<T>;
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
