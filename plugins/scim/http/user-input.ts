/**
 * Reads a SCIM User document (POST and PUT bodies, and the result of a PATCH) into the fields
 * Latchkey keeps, refusing what it cannot keep with RFC 7644 §3.12 errors. Attributes beyond
 * those Latchkey maps (displayName, title, the enterprise extension...) are accepted and
 * not kept: IdPs send them on every request. Booleans may come as the strings "True"/"False"
 * (Microsoft Entra ID).
 */
import type { ScimEmail } from '../entities.js';
import { badRequest } from './scim-error.js';

export interface ScimUserFields {
  userName: string | undefined;
  externalId: string | null;
  givenName: string | null;
  familyName: string | null;
  emails: ScimEmail[];
  active: boolean;
}

const MAX_TEXT = 256;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Attribute names are case-insensitive (RFC 7643 §2.1): the value of the first key matching `name`. */
export function attribute(source: Record<string, unknown>, name: string): unknown {
  const wanted = name.toLowerCase();
  for (const k of Object.keys(source)) if (k.toLowerCase() === wanted) return source[k];
  return undefined;
}

function text(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw badRequest('invalidValue', `${field} must be a string`);
  const v = value.trim();
  if (v.length > MAX_TEXT) throw badRequest('invalidValue', `${field} is longer than ${MAX_TEXT} characters`);
  if (/[\u0000-\u001f\u007f]/.test(v)) throw badRequest('invalidValue', `${field} holds control characters`);
  return v === '' ? null : v;
}

/** A SCIM boolean, also in Entra ID's string form. */
export function scimBoolean(value: unknown, field: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === 'true';
  throw badRequest('invalidValue', `${field} must be a boolean`);
}

function emails(value: unknown): ScimEmail[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw badRequest('invalidValue', 'emails must be an array');
  if (value.length > 20) throw badRequest('invalidValue', 'emails holds more than 20 addresses');
  return value.map((entry, i) => {
    if (!isObject(entry)) throw badRequest('invalidValue', `emails[${i}] must be an object`);
    const address = text(attribute(entry, 'value'), `emails[${i}].value`);
    if (!address) throw badRequest('invalidValue', `emails[${i}].value is required`);
    const type = text(attribute(entry, 'type'), `emails[${i}].type`);
    const primary = attribute(entry, 'primary');
    return {
      value: address,
      ...(type ? { type } : {}),
      ...(primary !== undefined && primary !== null ? { primary: scimBoolean(primary, `emails[${i}].primary`) } : {}),
    };
  });
}

export function readScimUser(body: unknown): ScimUserFields {
  if (!isObject(body)) throw badRequest('invalidSyntax', 'the body must be a SCIM User object');
  const schemas = attribute(body, 'schemas');
  if (schemas !== undefined && !(Array.isArray(schemas) && schemas.every((s) => typeof s === 'string'))) {
    throw badRequest('invalidSyntax', 'schemas must be an array of strings');
  }
  const name = attribute(body, 'name');
  if (name !== undefined && name !== null && !isObject(name))
    throw badRequest('invalidValue', 'name must be an object');
  const active = attribute(body, 'active');
  return {
    userName: text(attribute(body, 'userName'), 'userName') ?? undefined,
    externalId: text(attribute(body, 'externalId'), 'externalId'),
    givenName: isObject(name) ? text(attribute(name, 'givenName'), 'name.givenName') : null,
    familyName: isObject(name) ? text(attribute(name, 'familyName'), 'name.familyName') : null,
    emails: emails(attribute(body, 'emails')),
    active: active === undefined || active === null ? true : scimBoolean(active, 'active'),
  };
}

/** The primary address: the one marked primary, else the first; else a userName shaped like an address. */
export function primaryEmail(fields: ScimUserFields): string | undefined {
  const marked = fields.emails.find((e) => e.primary) ?? fields.emails[0];
  if (marked) return marked.value;
  return fields.userName && /^[^@\s]+@[^@\s]+$/.test(fields.userName) ? fields.userName : undefined;
}
