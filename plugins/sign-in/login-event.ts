/** The `user.login` event of a sign-in, stored with the start of its session (SignInAttempt.within). */
import type { EventBus } from '../../core/events.js';
import type { SignInAttempt } from './types.js';

/** A sign-in's `within` that sends `user.login` with the signed-in user and the method as `auth_recipe`. */
export const loginEvent =
  (events: EventBus, method: string): NonNullable<SignInAttempt['within']> =>
  (unit, user) =>
    events.emitWithin(unit, 'user.login', { user, auth_recipe: method });
