/**
 * Email verification at signup and after a change of address (`--enable-email-verification`):
 * the request itself is the users plugin's (plugins/users/email-verification.ts: stored with the
 * address, in one commit), shared with admin-users; this is what the account operations answer.
 */
/** authorizer's wording for this answer (its SDKs show it as is). */
export const VERIFICATION_SENT = 'Verification email has been sent. Please check your inbox';
