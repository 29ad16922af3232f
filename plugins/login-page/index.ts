/**
 * The login-page plugin: the hosted sign-in and sign-up page at /app (enabled with
 * `--enable-login-page`). /authorize sends users here and they come back to the same request.
 */
import { definePlugin } from '../../core/plugin.js';
import { mfaPageRoutes } from './mfa-routes.js';
import { accountFormRoutes } from './account-forms.js';
import { phoneFormRoutes } from './phone-forms.js';
import { loginPageRoutes } from './routes.js';

export const loginPagePlugin = definePlugin({
  name: 'login-page',
  description: 'Hosted login and signup page at /app (server-rendered, no JavaScript needed).',
  dependsOn: ['sessions', 'accounts'],
  flags: [{ name: 'enable-login-page', type: 'boolean', default: false, description: 'Hosted login page at /app.' }],
  enabled: (config) => config.bool('enable-login-page'),
  routes: [...loginPageRoutes, ...mfaPageRoutes, ...accountFormRoutes, ...phoneFormRoutes],
});
