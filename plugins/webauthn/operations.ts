/** The passkey operations (options, login options and deletion take plain GraphQL arguments). */
import type { RequestContext } from '../../core/context.js';
import { notFound, unauthenticated } from '../../core/errors.js';
import { defineOperation, type AnyOperation } from '../../core/operations.js';
import { MessageResponse, Type } from '../../core/schema.js';
import { AuthResponse } from '../accounts/index.js';
import type { WebauthnService } from './index.js';
import {
  WebauthnCredentialInfo,
  WebauthnDeleteCredentialRequest,
  WebauthnLoginOptionsRequest,
  WebauthnLoginOptionsResponse,
  WebauthnLoginVerifyRequest,
  WebauthnRegistrationOptionsRequest,
  WebauthnRegistrationOptionsResponse,
  WebauthnRegistrationVerifyRequest,
} from './schemas.js';

const webauthn = (ctx: RequestContext): WebauthnService => ctx.kernel.service('webauthn');
const seconds = (ms: number) => Math.floor(ms / 1000);

function callerId(ctx: RequestContext): string {
  const p = ctx.requirePrincipal();
  if (p.kind !== 'user' || !p.userId) throw unauthenticated();
  return p.userId;
}

export const webauthnOperations: AnyOperation[] = [
  defineOperation({
    name: 'webauthn_registration_options',
    kind: 'mutation',
    access: 'public',
    description: 'Passkey creation options (JSON text) for the signed-in caller or a pending first-time MFA offer.',
    input: WebauthnRegistrationOptionsRequest,
    output: WebauthnRegistrationOptionsResponse,
    graphql: { arg: 'flat', required: false },
    handler: (ctx, input) => webauthn(ctx).registrationOptions(ctx, input ?? {}),
  }),
  defineOperation({
    name: 'webauthn_registration_verify',
    kind: 'mutation',
    access: 'public',
    description:
      'Stores the created passkey; on the MFA-cookie path issues the withheld tokens, otherwise access_token is null.',
    input: WebauthnRegistrationVerifyRequest,
    output: AuthResponse,
    audit: {
      action: 'mfa.enroll',
      resourceType: 'user',
      resourceId: ({ caller, output }) => caller?.userId ?? output?.user?.id,
      metadata: () => ({ method: 'webauthn' }),
    },
    handler: (ctx, input) => webauthn(ctx).registrationVerify(ctx, input),
  }),
  defineOperation({
    name: 'webauthn_login_options',
    kind: 'mutation',
    access: 'public',
    description: 'Passkey request options (JSON text); without email for the usernameless ceremony.',
    input: WebauthnLoginOptionsRequest,
    output: WebauthnLoginOptionsResponse,
    graphql: { arg: 'flat', required: false },
    handler: (ctx, input) => webauthn(ctx).loginOptions(ctx, input?.email),
  }),
  defineOperation({
    name: 'webauthn_login_verify',
    kind: 'mutation',
    access: 'public',
    description: 'Checks a signed passkey assertion: finishes a pending MFA sign-in, or signs in without a password.',
    input: WebauthnLoginVerifyRequest,
    output: AuthResponse,
    audit: {
      action: 'user.login',
      resourceType: 'user',
      failures: true,
      resourceId: ({ output }) => output?.user?.id,
      actor: ({ output }) => (output?.user ? { kind: 'user', id: output.user.id } : undefined),
      metadata: () => ({ method: 'webauthn' }),
    },
    handler: (ctx, input) => webauthn(ctx).loginVerify(ctx, input),
  }),
  defineOperation({
    name: 'webauthn_credentials',
    kind: 'query',
    access: 'session',
    description: "The caller's own passkeys.",
    output: Type.Array(WebauthnCredentialInfo),
    // The REST listing is a POST like every other passkey call the published clients make.
    rest: { method: 'POST' },
    handler: async (ctx) => {
      const list = await webauthn(ctx).credentials.list(callerId(ctx));
      return list.map((c) => ({
        id: c.id,
        name: c.name,
        transports: c.transports,
        created_at: seconds(c.createdAt),
        updated_at: seconds(c.updatedAt),
        ...(c.lastUsedAt !== null ? { last_used_at: seconds(c.lastUsedAt) } : {}),
      }));
    },
  }),
  defineOperation({
    name: 'webauthn_delete_credential',
    kind: 'mutation',
    access: 'session',
    description: "Deletes one of the caller's own passkeys by id (another user's is not found).",
    input: WebauthnDeleteCredentialRequest,
    output: MessageResponse,
    audit: {
      action: 'mfa.remove',
      resourceType: 'webauthn_credential',
      resourceId: ({ input }) => input.id,
      metadata: () => ({ method: 'webauthn' }),
    },
    graphql: { arg: 'flat' },
    handler: async (ctx, input) => {
      const userId = callerId(ctx);
      const service = webauthn(ctx);
      if (!(await service.credentials.remove(userId, input.id))) throw notFound('passkey not found');
      await ctx.kernel.service('mfa').refreshEnrolled(userId);
      return { message: 'Passkey deleted successfully' };
    },
  }),
];
