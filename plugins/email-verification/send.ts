/** The verification mail: a link to `GET /verify_email` with the token. */
import type { UnitOfWork } from '../../core/unit-of-work.js';
import type { EmailEvent, EmailService } from '../email/index.js';
import type { UsersService, VerificationRecord } from '../users/index.js';

export interface MailDeps {
  /** `--url`: the only source of links. */
  url: string;
  users: UsersService;
  email: EmailService;
}

export function verifyLink(url: string, token: string, redirectUri: string | null): string {
  const query = new URLSearchParams({ token });
  if (redirectUri) query.set('redirect_uri', redirectUri);
  return `${url.replace(/\/+$/, '')}/verify_email?${query}`;
}

/**
 * Queues the mail. `within`: the unit of work that stores the request (the mail's row joins its
 * commit) and the user's name, which that uncommitted unit's user cannot be read for; without
 * it the request is stored already and the user is read.
 */
export async function sendVerificationMail(
  deps: MailDeps,
  request: Pick<VerificationRecord, 'identifier' | 'email' | 'redirectUri'> & { userId?: string | null },
  token: string,
  within?: { name: string; unit: UnitOfWork },
): Promise<void> {
  let name = within?.name ?? '';
  if (!within && request.userId) {
    const user = await deps.users.findById(request.userId);
    name = user ? [user.givenName, user.familyName].filter(Boolean).join(' ') : '';
  }
  await deps.email.send(
    {
      event: request.identifier as EmailEvent,
      to: request.email,
      data: { link: verifyLink(deps.url, token, request.redirectUri), ...(name ? { name } : {}) },
    },
    within?.unit,
  );
}
