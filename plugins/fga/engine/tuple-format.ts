/**
 * Tuple strings: objects are `type:id`; users are `type:id`, `type:*` (every object of the type)
 * or `type:id#relation` (a userset). These helpers parse them once and say whether a tuple fits
 * a model, which is the rule for writes and for which stored tuples reads consider.
 */
import type { ParsedUser } from './types.js';

const TYPE = /^[^:#@*\s]{1,254}$/;
/** No `:`, `#` or space anywhere in an id, as OpenFGA's tuple format (pkg/tuple): `doc:x:y` is refused there. */
const ID = /^[^#:*\s][^#:\s]{0,255}$/;
const RELATION = /^[^:#@*\s]{1,50}$/;

export function parseObject(s: string): { type: string; id: string } | null {
  const i = s.indexOf(':');
  if (i <= 0) return null;
  const type = s.slice(0, i);
  const id = s.slice(i + 1);
  if (!TYPE.test(type) || !ID.test(id) || id === '*') return null;
  return { type, id };
}

export function parseUser(s: string): ParsedUser | null {
  const i = s.indexOf(':');
  if (i <= 0) return null;
  const type = s.slice(0, i);
  if (!TYPE.test(type)) return null;
  const rest = s.slice(i + 1);
  if (rest === '*') return { type, id: '*', wildcard: true };
  const h = rest.indexOf('#');
  if (h < 0) return ID.test(rest) ? { type, id: rest, wildcard: false } : null;
  const id = rest.slice(0, h);
  const relation = rest.slice(h + 1);
  if (!ID.test(id) || !RELATION.test(relation)) return null;
  return { type, id, relation, wildcard: false };
}

export function isRelationName(s: string): boolean {
  return RELATION.test(s);
}

/** The restriction key a user must match: `user`, `user:*` or `group#member`. */
export function userShape(u: ParsedUser): string {
  return u.wildcard ? `${u.type}:*` : u.relation ? `${u.type}#${u.relation}` : u.type;
}

/** Shape straight from the string, without allocating a ParsedUser (hot path). */
export function shapeOf(user: string): string {
  const i = user.indexOf(':');
  const h = user.indexOf('#', i);
  if (h >= 0) return `${user.slice(0, i)}#${user.slice(h + 1)}`;
  if (user.length === i + 2 && user.charCodeAt(i + 1) === 42 /* '*' */) return user;
  return user.slice(0, i);
}

export function typeOf(ref: string): string {
  return ref.slice(0, ref.indexOf(':'));
}

export const tupleKey = (t: { object: string; relation: string; user: string }): string =>
  `${t.object}#${t.relation}@${t.user}`;
