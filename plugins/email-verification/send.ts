/** The verification mail: a link to `GET /verify_email` with the token. */
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

export async function sendVerificationMail(
  deps: MailDeps,
  request: Pick<VerificationRecord, 'identifier' | 'email' | 'userId' | 'redirectUri'>,
  token: string,
): Promise<void> {
  const user = request.userId ? await deps.users.findById(request.userId) : null;
  const name = user ? [user.givenName, user.familyName].filter(Boolean).join(' ') : '';
  await deps.email.send({
    event: request.identifier as EmailEvent,
    to: request.email,
    data: { link: verifyLink(deps.url, token, request.redirectUri), ...(name ? { name } : {}) },
  });
}
