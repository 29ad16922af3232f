/**
 * Mail templates: Handlebars (escapes every `{{value}}` by default), one default HTML and text
 * template per event, branded with `--organization-name` and `--organization-logo`, and the
 * admin's overrides (template-store.ts). A template is compiled with `knownHelpersOnly`, so an
 * unknown helper is a compile error too: whatever compiles at write time renders at send time.
 */
import Handlebars from 'handlebars';
import { invalidArgument } from '../../core/errors.js';
import type { EmailEvent } from './types.js';

const engine = Handlebars.create();
const COMPILE_OPTIONS = { knownHelpersOnly: true, strict: false } as const;

export interface Branding {
  organization_name: string;
  organization_logo: string;
}

interface DefaultTemplate {
  subject: string;
  /** The message's lead line, shared by the HTML and text parts. */
  lead: string;
  /** The action: a button and a link for links, the code for OTPs. */
  action: 'link' | 'otp';
  button: string;
}

const DEFAULTS: Record<EmailEvent, DefaultTemplate> = {
  basic_auth_signup: {
    subject: 'Verify your email address for {{organization_name}}',
    lead: 'Please confirm your email address to finish creating your {{organization_name}} account.',
    action: 'link',
    button: 'Verify email address',
  },
  magic_link_login: {
    subject: 'Your sign-in link for {{organization_name}}',
    lead: 'Use this link to sign in to {{organization_name}}. It works once and expires soon.',
    action: 'link',
    button: 'Sign in',
  },
  update_email: {
    subject: 'Confirm your new email address for {{organization_name}}',
    lead: 'Please confirm the new email address of your {{organization_name}} account.',
    action: 'link',
    button: 'Confirm email address',
  },
  forgot_password: {
    subject: 'Reset your {{organization_name}} password',
    lead: 'Someone asked to reset the password of your {{organization_name}} account. If it was not you, ignore this message.',
    action: 'link',
    button: 'Reset password',
  },
  verify_otp: {
    subject: 'Your {{organization_name}} verification code',
    lead: 'Enter this code to finish signing in to {{organization_name}}. It expires in a few minutes.',
    action: 'otp',
    button: '',
  },
  invite_member: {
    subject: 'You are invited to {{organization_name}}',
    lead: 'You have been invited to {{organization_name}}. Set your password to sign in.',
    action: 'link',
    button: 'Accept the invitation',
  },
};

function defaultHtml(t: DefaultTemplate): string {
  const action =
    t.action === 'otp'
      ? '<p style="font-size:28px;letter-spacing:6px;font-weight:bold">{{otp}}</p>'
      : `<p><a href="{{link}}" style="display:inline-block;padding:10px 18px;background:#1f4fd1;color:#fff;border-radius:6px;text-decoration:none">${t.button}</a></p>` +
        '<p style="font-size:12px;color:#555">Or open this address: {{link}}</p>';
  return (
    '<!doctype html><html><body style="font-family:system-ui,sans-serif;background:#f5f5f7;padding:24px">' +
    '<div style="max-width:480px;margin:auto;background:#fff;padding:24px;border-radius:12px">' +
    '{{#if organization_logo}}<img src="{{organization_logo}}" alt="{{organization_name}}" height="40">{{/if}}' +
    '<p>Hello{{#if name}} {{name}}{{/if}},</p>' +
    `<p>${t.lead}</p>${action}` +
    '<p style="font-size:12px;color:#555">{{organization_name}}</p></div></body></html>'
  );
}

function defaultText(t: DefaultTemplate): string {
  const action = t.action === 'otp' ? '{{otp}}' : '{{link}}';
  return `Hello{{#if name}} {{name}}{{/if}},\n\n${t.lead}\n\n${action}\n\n{{organization_name}}\n`;
}

/** An admin override of one event (schema.graphql `EmailTemplate`: subject and HTML template). */
export interface TemplateOverride {
  subject: string;
  template: string;
}

export interface RenderedMail {
  subject: string;
  html: string;
  text: string;
}

/** Template features that need something registered beside the template (they fail at send time). */
const UNSUPPORTED = new Set(['PartialStatement', 'PartialBlockStatement', 'Decorator', 'DecoratorBlock']);

interface AstNode {
  type: string;
  body?: AstNode[];
  program?: AstNode | null;
  inverse?: AstNode | null;
}

function refuseUnsupported(node: AstNode | null | undefined): void {
  if (!node) return;
  if (UNSUPPORTED.has(node.type)) throw new Error('partials and decorators are not supported');
  for (const child of node.body ?? []) refuseUnsupported(child);
  refuseUnsupported(node.program);
  refuseUnsupported(node.inverse);
}

/**
 * Refuses, as `invalid_argument`, a template that does not compile, uses partials or decorators
 * (nothing registers them: they would fail at send time), or fails to render without values
 * (checked at write time, so a stored template always renders).
 */
export function checkTemplate(field: string, source: string): void {
  try {
    engine.precompile(source, COMPILE_OPTIONS);
    refuseUnsupported(engine.parse(source) as unknown as AstNode);
    engine.compile(source, COMPILE_OPTIONS)({});
  } catch (err) {
    const reason = String((err as Error).message ?? err)
      .split('\n')[0]
      .slice(0, 200);
    throw invalidArgument(`invalid ${field}: the template does not compile (${reason})`);
  }
}

/** Compiled templates by source and escaping, so a template is compiled once per process, not per mail. */
const compiled = new Map<string, Handlebars.TemplateDelegate>();
const MAX_COMPILED = 256;

function render(source: string, values: Record<string, string>, escape: boolean): string {
  const key = `${escape ? 'e' : 'n'}:${source}`;
  let template = compiled.get(key);
  if (!template) {
    template = engine.compile(source, { ...COMPILE_OPTIONS, noEscape: !escape });
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value as string);
    compiled.set(key, template);
  }
  return template(values);
}

/**
 * The text part of an admin's HTML template: its rendered HTML without tags (the contract's
 * template holds one HTML body; mail clients without HTML read this).
 */
function textOf(html: string): string {
  return html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|h[1-6]|li|tr)>/gi, '\n')
    .replace(/<a\s[^>]*href="([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi, '$2 ($1)')
    .replace(/<[^>]+>/g, '')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&#x3D;/g, '=')
    .replace(/&#x60;/g, '`')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * Renders the mail of an event: the admin's override when there is one, else the default.
 * Subjects are headers, not HTML: rendered unescaped, with line breaks removed (no header
 * injection; nodemailer encodes the rest).
 */
export function renderMail(
  event: EmailEvent,
  data: Record<string, string>,
  branding: Branding,
  override: TemplateOverride | null,
): RenderedMail {
  const values = { ...data, ...branding };
  const subjectSource = override?.subject ?? DEFAULTS[event].subject;
  const subject = render(subjectSource, values, false)
    .replace(/[\r\n]+/g, ' ')
    .trim();
  if (override) {
    const html = render(override.template, values, true);
    return { subject, html, text: textOf(html) };
  }
  return {
    subject,
    html: render(defaultHtml(DEFAULTS[event]), values, true),
    text: render(defaultText(DEFAULTS[event]), values, false),
  };
}
