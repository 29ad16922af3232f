/** `revoke`: a refresh token and its family (RFC 7009: unknown tokens are not an error). */
import { defineOperation } from '../../../core/operations.js';
import { MessageResponse } from '../../../core/schema.js';
import { OAuthRevokeRequest } from '../schemas.js';
import { deps } from '../service.js';

export const revokeOperation = defineOperation({
  name: 'revoke',
  kind: 'mutation',
  access: 'public',
  description: 'Revokes a refresh token and its family (RFC 7009: unknown tokens are not an error).',
  input: OAuthRevokeRequest,
  output: MessageResponse,
  audit: { action: 'token.revoke', resourceType: 'refresh_token' },
  handler: async (ctx, input) => {
    await deps(ctx).tokens.revokeRefreshToken(input.refresh_token);
    return { message: 'Token revoked successfully' };
  },
});
