/** `signup`: a new user with email or phone number and password, then a session (or, with
 * --enable-email-verification, a verification mail first; with --enable-phone-verification, a
 * phone signup's texted code first, asked for by the phone-verification sign-in gate). */
import { invalidArgument, permissionDenied } from '../../../core/errors.js';
import { defineOperation } from '../../../core/operations.js';
import { AuthResponse, SignUpRequest } from '../schemas.js';
import { VERIFICATION_SENT } from '../verification.js';
import { deps, loginMethod, requestedScopes, signupRoles, startSession } from '../service.js';

export const signupOperation = defineOperation({
  name: 'signup',
  kind: 'mutation',
  access: 'public',
  description: 'Registers a user with email or phone number and password; starts a session.',
  input: SignUpRequest,
  output: AuthResponse,
  handler: async (ctx, input) => {
    const { config, users } = deps(ctx);
    if (!config.bool('enable-signup', true)) throw permissionDenied('signup is disabled for this instance');
    const method = loginMethod(ctx, input);
    if (input.password !== input.confirm_password)
      throw invalidArgument('password and confirm password does not match');
    users.checkPasswordPolicy(input.password);
    // With --enable-phone-verification a phone signup is texted its code next: a number no text
    // can reach is refused before the account is written.
    if (method === 'mobile_basic_auth' && ctx.kernel.hasService('phone-verification'))
      ctx.kernel.service('phone-verification').checkSignupNumber(input.phone_number ?? '');
    const roles = signupRoles(ctx, input.roles);
    const scopes = requestedScopes(input.scope);
    // With --enable-email-verification a password signup's address is proven first: its
    // request is stored with the user, in one commit (plugins/users/email-verification.ts).
    const proving = method === 'basic_auth' && config.bool('enable-email-verification');
    const user = await users.create(
      {
        ...(method === 'basic_auth' ? { email: input.email } : {}),
        ...(input.phone_number ? { phone_number: input.phone_number } : {}),
        password: input.password,
        signup_method: method,
        roles,
        given_name: input.given_name,
        family_name: input.family_name,
        middle_name: input.middle_name,
        nickname: input.nickname,
        gender: input.gender,
        birthdate: input.birthdate,
        picture: input.picture,
        app_data: input.app_data,
        is_multi_factor_auth_enabled: input.is_multi_factor_auth_enabled,
      },
      {
        ...(proving ? { proveEmail: input.redirect_uri ? { redirectUri: input.redirect_uri } : {} } : {}),
        // The account's events are stored by the commit that stores it (transactional outbox).
        within: async (unit, created) => {
          const dto = users.toUserDto(created);
          await ctx.kernel.events.emitWithin(unit, 'user.created', { user: dto, auth_recipe: method });
          await ctx.kernel.events.emitWithin(unit, 'user.signup', { user: dto, auth_recipe: method });
        },
      },
    );
    if (proving && user.email !== null) {
      // No session until the address is proven (login refuses unverified emails as well).
      return { message: VERIFICATION_SENT, user: users.toUserDto(user) };
    }
    const result = await startSession(ctx, user, {
      method,
      roles,
      scopes,
      amr: ['pwd'],
      message: 'Signed up successfully.',
    });
    return result;
  },
});
