/**
 * Input rules for users: passwords 6 to 36 characters, and with
 * `--enable-strong-password` an upper-case letter, a lower-case letter, a digit and a symbol.
 * Emails are stored lowercase; phone numbers as digits with an optional leading `+` (E.164-like).
 */
import { invalidArgument } from '../../core/errors.js';

export function checkPasswordPolicy(password: string, strong: boolean): void {
  const length = [...password].length;
  if (length < 6 || length > 36) throw invalidArgument('password must be between 6 and 36 characters');
  if (!strong) return;
  if (!/[a-z]/.test(password)) throw invalidArgument('password must contain at least one lower-case letter');
  if (!/[A-Z]/.test(password)) throw invalidArgument('password must contain at least one upper-case letter');
  if (!/[0-9]/.test(password)) throw invalidArgument('password must contain at least one digit');
  if (!/[^A-Za-z0-9]/.test(password)) throw invalidArgument('password must contain at least one special character');
}

// Deliberately simple (WHATWG's `type=email` rule): one @, no spaces, a dotless or dotted domain.
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

export function normalizeEmail(email: string): string {
  const e = email.trim().toLowerCase();
  if (e.length === 0 || e.length > 254 || !EMAIL.test(e)) throw invalidArgument('invalid email address');
  return e;
}

/**
 * Digits with an optional leading `+`. `00` is the international prefix ITU-T E.164 recommends
 * (no national number starts with it), so `0049…` is stored as `+49…`: the same number in its
 * two common international spellings must not make two accounts. A number without `+`
 * or `00` is kept as given: whether it is national cannot be known without a region.
 */
export function normalizePhone(phone: string): string {
  let p = phone.replace(/[\s().-]/g, '');
  if (p.startsWith('00')) p = `+${p.slice(2)}`;
  if (!/^\+?[0-9]{6,15}$/.test(p)) throw invalidArgument('invalid phone number');
  return p;
}

/** Comma-joined storage of lists; names never contain commas (validated at input). */
export const joinList = (list: readonly string[]): string => list.join(',');
export const splitList = (text: string | null | undefined): string[] =>
  text ? text.split(',').filter((s) => s.length > 0) : [];
