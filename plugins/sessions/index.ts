/** The sessions plugin: server-side sessions and the app session cookies (`sessions` service). */
import { definePlugin } from '../../core/plugin.js';
import { createSessionsService } from './service.js';
import type { SessionsService } from './types.js';
// The `user.deleted` hook's payload type (declared by the users plugin).
import type {} from '../users/index.js';

export type { SessionsService, SessionRecord } from './types.js';
export { SESSION_COOKIE, SESSION_DOMAIN_COOKIE } from './cookies.js';

export const sessionsPlugin = definePlugin<SessionsService>({
  name: 'sessions',
  description: 'Server-side sessions (24 hours) and the cookie_session / cookie_session_domain cookies.',
  dependsOn: ['keys'],
  flags: [
    {
      name: 'app-cookie-secure',
      type: 'boolean',
      default: true,
      description: 'Secure flag of the app session cookies.',
    },
    {
      name: 'app-cookie-same-site',
      type: 'string',
      default: 'none',
      choices: ['none', 'lax', 'strict'],
      description: 'SameSite of the app session cookies.',
    },
  ],
  setup(ctx) {
    const sessions = createSessionsService(ctx.config, ctx.memory, ctx.service('keys'));
    // Whoever deletes a user (admin, SCIM, self-service), the user's sessions end with them.
    ctx.hooks.on('user.deleted', async ({ user }) => {
      await sessions.revokeAll(user.id);
    });
    return sessions;
  },
});
