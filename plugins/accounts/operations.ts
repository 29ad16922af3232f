/**
 * The public account operations, one file each under operations/. Inputs are closed TypeBox
 * schemas, so unknown fields, wrong types and oversized strings are an `invalid_argument` before
 * any handler runs, and nothing is written.
 */
import type { AnyOperation } from '../../core/operations.js';
import { signupOperation } from './operations/signup.js';
import { loginOperation } from './operations/login.js';
import { sessionOperation } from './operations/session.js';
import { logoutOperation } from './operations/logout.js';
import { profileOperation } from './operations/profile.js';
import { updateProfileOperation } from './operations/update-profile.js';
import { deactivateAccountOperation } from './operations/deactivate-account.js';
import { revokeOperation } from './operations/revoke.js';
import { validateJwtTokenOperation } from './operations/validate-jwt-token.js';
import { validateSessionOperation } from './operations/validate-session.js';

export const accountOperations: AnyOperation[] = [
  signupOperation,
  loginOperation,
  sessionOperation,
  logoutOperation,
  profileOperation,
  updateProfileOperation,
  deactivateAccountOperation,
  revokeOperation,
  validateJwtTokenOperation,
  validateSessionOperation,
];
