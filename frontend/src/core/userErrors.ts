/** Put a mutation's userErrors, or a request failure, into words for the person at the screen. */
import type { UserErrorFieldsFragment } from './graphql.generated';
import { RequestFailed } from './http';

export type UserError = UserErrorFieldsFragment;

export function words(state: string | null | undefined): string {
  return (state ?? '').toLowerCase().replace(/_/g, ' ');
}

export function describeUserError(error: UserError): string {
  switch (error.code) {
    case 'INVALID_TRANSITION': {
      const what = error.entity ?? 'item';
      const now = error.fromState ? ` It is ${words(error.fromState)} now.` : '';
      return `That cannot be done to this ${words(what)} any more.${now} (${error.message})`;
    }
    case 'NOT_FOUND':
      return `It no longer exists, or it belongs to another tenant. (${error.message})`;
    case 'VALIDATION_FAILED': {
      const field = error.field?.length ? ` Check ${error.field.join('.')}.` : '';
      return `The input was not accepted:${field} ${error.message}`;
    }
    case 'CONFLICT':
      return `Someone else changed it at the same moment; look again and retry. (${error.message})`;
    default:
      return error.message;
  }
}

export function describeFailure(error: unknown): string {
  if (error instanceof RequestFailed && error.code === 'FORBIDDEN') {
    return 'Your API key may not do this (deciding reviews needs the reviewer or admin role).';
  }
  if (error instanceof Error) return error.message;
  return String(error);
}
