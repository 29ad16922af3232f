/**
 * The admin's templates (schema.graphql `EmailTemplate`): at most one per event, each checked to
 * compile before it is stored (templates.ts), so a broken template is a 400 at write time and
 * never a failed mail.
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { ServiceError, invalidArgument, notFound } from '../../core/errors.js';
import { MAX_TEXT_BYTES, type Storage } from '../../core/storage.js';
import { newId } from '../../storage/index.js';
import { EmailTemplateEntity, type TemplateRow } from './entities.js';
import { checkTemplate, type TemplateOverride } from './templates.js';
import { EMAIL_EVENTS, type EmailEvent } from './types.js';

export interface TemplateInput {
  event_name?: string;
  subject?: string;
  template?: string;
  design?: string;
}

export interface TemplateStore {
  add(
    input: Required<Pick<TemplateInput, 'event_name' | 'subject' | 'template'>> & TemplateInput,
  ): Promise<TemplateRow>;
  update(id: string, input: TemplateInput): Promise<TemplateRow>;
  remove(id: string): Promise<void>;
  list(page: { limit: number; offset: number }): Promise<{ rows: TemplateRow[]; total: number }>;
  /** The override of an event, or null for the default. */
  forEvent(event: EmailEvent): Promise<TemplateOverride | null>;
}

const DUPLICATE = 'an email template for this event already exists';

function checkEvent(name: string): EmailEvent {
  if (!(EMAIL_EVENTS as readonly string[]).includes(name))
    throw invalidArgument(`invalid event_name: expected one of ${EMAIL_EVENTS.join(', ')}`);
  return name as EmailEvent;
}

/** Text stored in a TEXT column: bounded in bytes, what every database holds (core/storage.ts). */
function checkSize(field: string, value: string): void {
  if (Buffer.byteLength(value) > MAX_TEXT_BYTES / 2)
    throw invalidArgument(`invalid ${field}: at most ${MAX_TEXT_BYTES / 2} bytes`);
}

function checkFields(input: TemplateInput): void {
  if (input.subject !== undefined) {
    if (input.subject.trim() === '') throw invalidArgument('invalid subject: must not be empty');
    if (/[\r\n]/.test(input.subject)) throw invalidArgument('invalid subject: must be one line');
    checkTemplate('subject', input.subject);
  }
  if (input.template !== undefined) {
    if (input.template.trim() === '') throw invalidArgument('invalid template: must not be empty');
    checkSize('template', input.template);
    checkTemplate('template', input.template);
  }
  if (input.design !== undefined) checkSize('design', input.design);
}

const toRow = (r: TemplateRow): TemplateRow => ({
  ...r,
  createdAt: Number(r.createdAt),
  updatedAt: Number(r.updatedAt),
});

export function createTemplateStore(storage: Storage): TemplateStore {
  const find = async (id: string): Promise<TemplateRow> => {
    const row = (await storage.em().findOne(EmailTemplateEntity, { id } as never)) as TemplateRow | null;
    if (!row || row.id !== id) throw notFound('email template not found');
    return row;
  };
  const save = async (work: () => Promise<void>): Promise<void> => {
    try {
      await work();
    } catch (err) {
      if (err instanceof UniqueConstraintViolationException) throw new ServiceError('already_exists', DUPLICATE);
      throw err;
    }
  };
  return {
    async add(input) {
      const event = checkEvent(input.event_name);
      checkFields(input);
      const em = storage.em();
      if (await em.findOne(EmailTemplateEntity, { eventName: event } as never))
        throw new ServiceError('already_exists', DUPLICATE);
      const t = Math.floor(Date.now() / 1000);
      const row: TemplateRow = {
        id: newId(),
        eventName: event,
        subject: input.subject,
        template: input.template,
        design: input.design ?? null,
        createdAt: t,
        updatedAt: t,
      };
      em.create(EmailTemplateEntity, row as never);
      await save(() => em.flush());
      return row;
    },
    async update(id, input) {
      const event = input.event_name !== undefined ? checkEvent(input.event_name) : undefined;
      checkFields(input);
      if (Object.values(input).every((v) => v === undefined))
        throw invalidArgument('please enter at least one param to update');
      const row = await find(id);
      const changes: Partial<TemplateRow> = { updatedAt: Math.floor(Date.now() / 1000) };
      if (event !== undefined) changes.eventName = event;
      if (input.subject !== undefined) changes.subject = input.subject;
      if (input.template !== undefined) changes.template = input.template;
      if (input.design !== undefined) changes.design = input.design;
      if (event !== undefined && event !== row.eventName) {
        const holder = (await storage
          .em()
          .findOne(EmailTemplateEntity, { eventName: event } as never)) as TemplateRow | null;
        if (holder && holder.id !== id) throw new ServiceError('already_exists', DUPLICATE);
      }
      await save(async () => {
        await storage.em().nativeUpdate(EmailTemplateEntity, { id } as never, changes as never);
      });
      return toRow({ ...row, ...changes });
    },
    async remove(id) {
      await find(id);
      const removed = await storage.em().nativeDelete(EmailTemplateEntity, { id } as never);
      if (removed === 0) throw notFound('email template not found');
    },
    async list({ limit, offset }) {
      const [rows, total] = await storage.em().findAndCount(EmailTemplateEntity, {} as never, {
        orderBy: { createdAt: 'desc', id: 'desc' } as never,
        limit,
        offset,
      });
      return { rows: (rows as unknown as TemplateRow[]).map(toRow), total };
    },
    async forEvent(event) {
      const row = (await storage
        .em()
        .findOne(EmailTemplateEntity, { eventName: event } as never)) as TemplateRow | null;
      return row ? { subject: row.subject, template: row.template } : null;
    },
  };
}
