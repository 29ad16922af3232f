/**
 * PATCH (RFC 7644 §3.5.2) in the forms identity providers send: the RFC's, and Microsoft Entra
 * ID's and Okta's variants, brought to the RFC's before scim-patch applies them to the current
 * resource. Variants: a capitalised `op` ("Replace", "Add"); `replace`/`add` without `path`
 * whose value object holds attribute paths as keys ("name.givenName", an extension's URN path);
 * string booleans ("False"); value-path filters (`emails[type eq "work"].value`), which
 * scim-patch resolves with the SCIM filter grammar.
 */
import { ScimError as PatchLibraryError, scimPatch, type ScimPatchOperation, type ScimResource } from 'scim-patch';
import { PATCH_SCHEMA } from './user-resource.js';
import { badRequest } from './scim-error.js';
import { attribute } from './user-input.js';

const MAX_OPERATIONS = 100;
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The operations of a PatchOp body, each in RFC form (lowercase op, one path per value). */
export function readPatchOperations(body: unknown): ScimPatchOperation[] {
  if (!isObject(body)) throw badRequest('invalidSyntax', 'the body must be a PatchOp object');
  const schemas = attribute(body, 'schemas');
  if (!Array.isArray(schemas) || !schemas.includes(PATCH_SCHEMA)) {
    throw badRequest('invalidSyntax', `schemas must contain ${PATCH_SCHEMA}`);
  }
  const operations = attribute(body, 'Operations');
  if (!Array.isArray(operations) || operations.length === 0) {
    throw badRequest('invalidSyntax', 'Operations must be a non-empty array');
  }
  if (operations.length > MAX_OPERATIONS) throw badRequest('invalidSyntax', `at most ${MAX_OPERATIONS} operations`);
  return operations.flatMap((raw, i): ScimPatchOperation[] => {
    if (!isObject(raw)) throw badRequest('invalidSyntax', `Operations[${i}] must be an object`);
    const op = attribute(raw, 'op');
    if (typeof op !== 'string' || !/^(add|remove|replace)$/i.test(op)) {
      throw badRequest('invalidSyntax', `Operations[${i}].op must be add, remove or replace`);
    }
    const kind = op.toLowerCase() as 'add' | 'remove' | 'replace';
    const path = attribute(raw, 'path');
    if (path !== undefined && path !== null && (typeof path !== 'string' || path.length === 0 || path.length > 512)) {
      throw badRequest('invalidPath', `Operations[${i}].path must be a non-empty string`);
    }
    const hasValue = Object.keys(raw).some((k) => k.toLowerCase() === 'value');
    const value = attribute(raw, 'value');
    if (kind === 'remove') {
      if (typeof path !== 'string') throw badRequest('noTarget', `Operations[${i}]: remove needs a path`);
      // Entra ID names the members to remove in the value ([{ value: id }]); each becomes a
      // value-path filter on its `value`, as Okta sends it (`members[value eq "id"]`).
      if (hasValue && Array.isArray(value) && /^[A-Za-z$][\w$-]*$/.test(path)) {
        return value.map((item, j) => {
          const id = isObject(item) ? attribute(item, 'value') : undefined;
          if (typeof id !== 'string')
            throw badRequest('invalidValue', `Operations[${i}].value[${j}].value must be a string`);
          return { op: 'remove', path: `${path}[value eq ${JSON.stringify(id)}]` };
        });
      }
      return [{ op: 'remove', path }];
    }
    if (!hasValue) throw badRequest('invalidValue', `Operations[${i}]: ${kind} needs a value`);
    if (typeof path === 'string') return [{ op: kind, path, value }];
    // No path: the value's keys are the attributes (RFC 7644 §3.5.2.1/3); each becomes its own
    // operation, so a dotted key such as Entra ID's "name.givenName" reaches the sub-attribute.
    if (!isObject(value))
      throw badRequest('invalidValue', `Operations[${i}]: without a path the value must be an object`);
    return Object.entries(value).map(([key, v]) => ({ op: kind, path: key, value: v }));
  });
}

/** The resource with the operations applied; the input is left unchanged. */
export function applyPatch(resource: object, operations: ScimPatchOperation[]): Record<string, unknown> {
  // scim-patch types `meta` times as Date; it never reads them, and the ISO strings stay as they are.
  const document = structuredClone(resource) as unknown as ScimResource;
  try {
    return scimPatch(document, operations, { mutateDocument: true, treatMissingAsAdd: true }) as unknown as Record<
      string,
      unknown
    >;
  } catch (err) {
    if (err instanceof PatchLibraryError || err instanceof Error) {
      const scimType = (err as { scimCode?: string }).scimCode;
      throw badRequest(
        scimType === 'noTarget' || scimType === 'invalidPath' ? scimType : 'invalidValue',
        `the patch cannot be applied: ${err.message.slice(0, 200)}`,
      );
    }
    throw err;
  }
}
