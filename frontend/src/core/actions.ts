/**
 * What the server offers the caller on an object now (`availableActions`): computed from the state
 * machines and the key's role, so the dashboard draws buttons from it and keeps no copy of either.
 */
export interface AvailableAction {
  readonly mutation: string;
  readonly action: string;
}

/** Whether `mutation` (and, if given, that machine action of it) is offered. */
export function offers(
  available: readonly AvailableAction[] | null | undefined,
  mutation: string,
  action?: string,
): boolean {
  return (available ?? []).some((a) => a.mutation === mutation && (action === undefined || a.action === action));
}
