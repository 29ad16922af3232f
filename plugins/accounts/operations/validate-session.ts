/** `validate_session`: an app session cookie value, and optional roles and relations. */
import { defineOperation } from '../../../core/operations.js';
import { hasRelations, hasRoles } from '../relations.js';
import { ValidateSessionRequest, ValidateSessionResponse } from '../schemas.js';
import { deps } from '../service.js';

export const validateSessionOperation = defineOperation({
  name: 'validate_session',
  kind: 'query',
  access: 'public',
  description: 'Validates an app session cookie value and optional roles and relations.',
  input: ValidateSessionRequest,
  output: ValidateSessionResponse,
  graphql: { required: false },
  handler: async (ctx, input) => {
    const { sessions, users } = deps(ctx);
    let cookie = input.cookie;
    try {
      cookie = decodeURIComponent(cookie);
    } catch {
      // Not URL-encoded; use as given.
    }
    const session = await sessions.fromCookie(cookie);
    const user = session ? await users.findById(session.userId) : null;
    if (!session || !user || user.revokedTimestamp !== null) return { is_valid: false };
    if (!hasRoles(session.roles, input.roles)) return { is_valid: false };
    if (!(await hasRelations(ctx, `user:${user.id}`, input.required_relations))) return { is_valid: false };
    return { is_valid: true, user: users.toUserDto(user) };
  },
});
