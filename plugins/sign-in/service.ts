/** The sign-in pipeline: gates, then session, cookies and tokens. */
import type { RequestContext } from '../../core/context.js';
import type { Logger } from '../../core/logger.js';
import type { Storage } from '../../core/storage.js';
import { openUnitOfWork } from '../../core/unit-of-work.js';
import type { SessionsService } from '../sessions/index.js';
import type { TokensService } from '../tokens/index.js';
import type { UsersService } from '../users/index.js';
import type { UserRecord } from '../users/index.js';
import type { SessionRecord } from '../sessions/index.js';
import type { AuthResult, IssuedAuthResult, SignInAttempt, SignInGate, SignInService } from './types.js';

export interface SignInDeps {
  users: UsersService;
  sessions: SessionsService;
  tokens: TokensService;
  storage: Storage;
  logger: Logger;
}

export function createSignInService({ users, sessions, tokens, storage, logger }: SignInDeps): SignInService {
  const firstGates: SignInGate[] = [];
  const gates: SignInGate[] = [];

  async function respond(
    ctx: RequestContext,
    user: UserRecord,
    session: SessionRecord,
    message: string,
  ): Promise<IssuedAuthResult> {
    const issued = await tokens.issue({ user, session, scopes: session.scopes, roles: session.roles });
    sessions.setCookies(ctx, session);
    return {
      message,
      access_token: issued.access_token,
      id_token: issued.id_token,
      ...(issued.refresh_token ? { refresh_token: issued.refresh_token } : {}),
      expires_in: issued.expires_in,
      user: users.toUserDto(user),
    };
  }

  async function startSession(ctx: RequestContext, attempt: SignInAttempt): Promise<IssuedAuthResult> {
    const session = await sessions.create({
      userId: attempt.user.id,
      roles: attempt.roles,
      scopes: attempt.scopes,
      amr: attempt.amr,
      ...(attempt.readAt !== undefined ? { readAt: attempt.readAt } : {}),
    });
    const result = await respond(ctx, attempt.user, session, attempt.message);
    if (attempt.within) {
      const unit = openUnitOfWork(storage.em(), (err) => logger.error({ err }, 'after-commit step failed'));
      try {
        await attempt.within(unit, result.user);
        await unit.commit();
      } catch (err) {
        // The tokens are not answered: the session they name ends with them.
        sessions.clearCookies(ctx);
        await sessions.revoke(session.userId, session.id);
        throw err;
      }
    }
    return result;
  }

  async function complete(ctx: RequestContext, attempt: SignInAttempt): Promise<AuthResult> {
    for (const list of [firstGates, gates]) {
      for (const gate of list) {
        const withheld = await gate(ctx, attempt);
        if (withheld) return withheld;
      }
    }
    return startSession(ctx, attempt);
  }

  return {
    complete,
    startSession,
    respond,
    addGate: (gate, options) => void (options?.first ? firstGates : gates).push(gate),
  };
}
