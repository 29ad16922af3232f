/**
 * The email plugin: SMTP through nodemailer (`--smtp-*`), a durable outbox in the main database
 * with a sending worker (outbox.ts), Handlebars templates with a branded default per event and
 * the admin's overrides (templates.ts, template-store.ts), and the abuse limits of mail-sending
 * operations (send-limits.ts). The flows that mail users (verification, magic links, password
 * reset, invitations, email OTP) use its `email` service.
 */
import { Counter } from 'prom-client';
import { definePlugin } from '../../core/plugin.js';
import { EmailTemplateEntity, MailOutboxEntity } from './entities.js';
import { emailConfigProblem, emailFlags } from './flags.js';
import { attachInternals, emailOperations } from './operations.js';
import { createOutbox } from './outbox.js';
import { createEmailService } from './service.js';
import { createTemplateStore } from './template-store.js';
import { createMailTransport } from './transport.js';
import type { EmailService } from './types.js';

export { EMAIL_EVENTS } from './types.js';
export type { EmailEvent, EmailMessage, EmailService, OutboxEntry } from './types.js';

/** The sealing purpose of outbox bodies (keys service). */
const MAIL_BODY_PURPOSE = 'mail-outbox-body';

export const emailPlugin = definePlugin<EmailService>({
  name: 'email',
  description: 'Outgoing mail: SMTP, a durable outbox with retries, templates per event, send limits.',
  dependsOn: ['keys'],
  flags: emailFlags,
  validateConfig: emailConfigProblem,
  entities: [MailOutboxEntity, EmailTemplateEntity],
  operations: emailOperations,
  setup(ctx) {
    const { config, storage, memory, logger } = ctx;
    const keys = ctx.service('keys');
    const transport = config.has('smtp-host') ? createMailTransport(config) : undefined;
    const failures = new Counter({
      name: 'latchkey_mail_delivery_failures_total',
      help: 'Failed mail deliveries: `retry` an attempt that will be made again, `failed` a mail given up after --email-max-attempts.',
      labelNames: ['outcome'],
      registers: [ctx.metrics],
    });
    const outbox = createOutbox({
      storage,
      transport,
      logger,
      onRetry: () => failures.inc({ outcome: 'retry' }),
      onFailed: () => failures.inc({ outcome: 'failed' }),
      maxAttempts: config.number('email-max-attempts', 8),
      retryDelayMs: config.number('email-retry-delay-ms', 5000),
      bodies: {
        seal: (text) => keys.seal(text, MAIL_BODY_PURPOSE),
        open: (sealed) => keys.open(sealed, MAIL_BODY_PURPOSE),
      },
    });
    const templates = createTemplateStore(storage);
    outbox.start();
    ctx.onClose(async () => {
      await outbox.stop();
      transport?.close();
    });
    if (!transport) logger.info({}, 'no --smtp-host: mail is kept in the outbox and not sent');
    const service = createEmailService({ config, memory, templates, outbox });
    attachInternals(storage, { templates, outbox });
    return service;
  },
});

export { checkedRedirect, redirectAllowed, serviceLink, withQuery } from './links.js';
export { linkTokens, type LinkTokens } from './link-tokens.js';
