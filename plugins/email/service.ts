/** The `email` service: render, store in the outbox, limit. */
import type { Config } from '../../core/config.js';
import type { MemoryStore } from '../../core/memory-store.js';
import type { Outbox } from './outbox.js';
import { createSendLimits } from './send-limits.js';
import type { TemplateStore } from './template-store.js';
import { renderMail } from './templates.js';
import type { EmailService } from './types.js';

export interface EmailServiceDeps {
  config: Config;
  memory: MemoryStore;
  templates: TemplateStore;
  outbox: Outbox;
}

export function createEmailService({ config, memory, templates, outbox }: EmailServiceDeps): EmailService {
  const branding = {
    organization_name: config.string('organization-name', 'Latchkey'),
    organization_logo: config.string('organization-logo', ''),
  };
  return {
    configured: config.has('smtp-host'),
    async send({ event, to, data }, unit) {
      const mail = renderMail(event, data, branding, await templates.forEvent(event));
      await outbox.add(event, { to, ...mail }, unit);
    },
    checkSendLimit: createSendLimits(
      memory,
      config.number('email-limit-per-address', 5),
      config.number('email-limit-per-ip', 30),
    ),
    stats: () => outbox.stats(),
  };
}
