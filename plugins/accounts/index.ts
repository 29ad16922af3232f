/**
 * The accounts plugin: signup and login with email or phone number and password, and the session
 * operations (session, logout, profile, update_profile, deactivate_account, revoke,
 * validate_jwt_token, validate_session) over every transport.
 */
import { definePlugin } from '../../core/plugin.js';
import { accountOperations } from './operations.js';

export { AuthResponse } from './schemas.js';
export { VERIFICATION_SENT } from './verification.js';

export const accountsPlugin = definePlugin({
  name: 'accounts',
  description: 'Password signup and login, sessions, profile and token validation operations.',
  dependsOn: ['users', 'sessions', 'tokens', 'sign-in'],
  flags: [
    { name: 'enable-basic-authentication', type: 'boolean', default: true, description: 'Email and password login.' },
    { name: 'enable-signup', type: 'boolean', default: true, description: 'Allow signup.' },
    {
      name: 'enable-mobile-basic-authentication',
      type: 'boolean',
      default: false,
      description: 'Phone number and password login.',
    },
  ],
  events: ['user.login', 'user.signup', 'user.created', 'user.deactivated'],
  meta: (config) => ({
    is_basic_authentication_enabled: config.bool('enable-basic-authentication', true),
    is_sign_up_enabled: config.bool('enable-signup', true),
    is_mobile_basic_authentication_enabled: config.bool('enable-mobile-basic-authentication'),
    is_email_verification_enabled: config.bool('enable-email-verification'),
  }),
  operations: accountOperations,
});
