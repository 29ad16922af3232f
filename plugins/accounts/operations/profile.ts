/** `profile`: the caller's profile. */
import { defineOperation } from '../../../core/operations.js';
import { UserSchema } from '../../users/index.js';
import { deps } from '../service.js';
import { cachedCurrentUser, currentSession } from './current-session.js';

export const profileOperation = defineOperation({
  name: 'profile',
  kind: 'query',
  access: 'session',
  description: "The caller's profile.",
  rest: { method: 'GET' },
  mcp: true,
  output: UserSchema,
  handler: (ctx) => {
    const services = deps(ctx);
    const cached = cachedCurrentUser(ctx, services);
    return cached
      ? services.users.toUserDto(cached)
      : currentSession(ctx).then(({ user }) => services.users.toUserDto(user));
  },
});
