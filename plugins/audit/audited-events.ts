/**
 * Which actions are audited, and how each becomes an audit record (SPEC.md "Audit": FGA reset,
 * and organization domain verification when that plugin is built). The operation performing one
 * passes who acted (`actor`, `actor_kind`, `ip`, `user_agent`) to `AuditService.record`; this
 * says what was acted on.
 */
export interface AuditedEvent {
  action: string;
  resourceType: string;
  /** The resource's id from the event's payload ('' when the event concerns a whole store). */
  resourceId(payload: Record<string, unknown>): string;
}

export const AUDITED_EVENTS: Record<string, AuditedEvent> = {
  'fga.reset': { action: 'fga.reset', resourceType: 'fga_store', resourceId: () => '' },
};
