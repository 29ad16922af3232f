/**
 * The `/scim/v2` routes (RFC 7644 §3): each request runs the same steps —
 * recognise the organization from the bearer token alone, run the resource handler, answer
 * `application/scim+json`, turn refusals into RFC 7644 §3.12 errors. Bearer-only requests from
 * identity providers carry no Origin and no cookies, so the routes are exempt from the CSRF rule.
 */
import type { RequestContext } from '../../../core/context.js';
import type { RawRequest, RawResponse, RawRoute } from '../../../core/plugin.js';
import type { ScimEndpoint } from '../endpoints.js';
import type { Groups, ProvisionedGroup } from '../groups.js';
import type { Provisioning, ProvisionedUser, RequestSource } from '../provisioning.js';
import { GROUP_SCHEMA, readScimGroup, toScimGroup } from './group-resource.js';
import {
  groupResourceType,
  groupSchema,
  listOf,
  serviceProviderConfig,
  userResourceType,
  userSchema,
} from './discovery-documents.js';
import { displayNameOfFilter, userNameOfFilter } from './filter.js';
import { applyPatch, readPatchOperations } from './patch.js';
import {
  SCIM_JSON,
  ScimError,
  internalErrorResponse,
  scimErrorResponse,
  scimNotFound,
  unauthorized,
} from './scim-error.js';
import { readScimUser } from './user-input.js';
import { USER_SCHEMA, toScimUser } from './user-resource.js';

/** What the routes need of the kernel they serve, found through the request's context. */
export interface ScimRouteDeps {
  provisioning(ctx: RequestContext): Provisioning;
  groups(ctx: RequestContext): Groups;
  authenticate(ctx: RequestContext, token: string | undefined): Promise<ScimEndpoint | null>;
  baseUrl(ctx: RequestContext): string;
}

type Handler = (req: RawRequest, ctx: RequestContext, orgId: string) => Promise<RawResponse>;

const answer = (status: number, body?: unknown, headers: Record<string, string> = {}): RawResponse => ({
  status,
  headers: { 'content-type': SCIM_JSON, 'cache-control': 'no-store', ...headers },
  body: body === undefined ? '' : JSON.stringify(body),
});

/** The id segment of `/scim/v2/Users/<id>`. */
function idOf(req: RawRequest): string {
  const segment = req.path.slice(req.path.lastIndexOf('/') + 1);
  let id: string;
  try {
    id = decodeURIComponent(segment);
  } catch {
    return '';
  }
  // Ids are printable and at most 64 characters (entities.ts): anything else names no resource,
  // and is not handed to the database (a NUL there is a driver error, not a 404).
  return /^[\x21-\x7e]{1,64}$/.test(id) ? id : '';
}

const sourceOf = (ctx: RequestContext): RequestSource => ({ ip: ctx.ip, userAgent: ctx.header('user-agent') ?? '' });

async function refused(err: unknown, ctx: RequestContext): Promise<RawResponse> {
  const response = scimErrorResponse(err);
  if (response) return response;
  ctx.kernel.logger.error({ err }, 'scim request failed');
  return internalErrorResponse();
}

export function scimRoutes(deps: ScimRouteDeps): RawRoute[] {
  /** Authenticated resource route: the organization comes from the token, never from the request. */
  const authed =
    (handler: Handler) =>
    async (req: RawRequest, ctx: RequestContext): Promise<RawResponse> => {
      try {
        const endpoint = await deps.authenticate(ctx, ctx.bearer());
        if (!endpoint) throw unauthorized();
        return await handler(req, ctx, endpoint.orgId);
      } catch (err) {
        return refused(err, ctx);
      }
    };
  const open =
    (document: (baseUrl: string) => unknown) =>
    async (_req: RawRequest, ctx: RequestContext): Promise<RawResponse> =>
      answer(200, document(deps.baseUrl(ctx)));

  const resource = (ctx: RequestContext, p: ProvisionedUser, status = 200) =>
    answer(status, toScimUser(p.user, p.link, deps.baseUrl(ctx)), {
      location: `${deps.baseUrl(ctx)}/scim/v2/Users/${p.user.id}`,
    });

  const mustFind = async (ctx: RequestContext, orgId: string, req: RawRequest): Promise<ProvisionedUser> => {
    const found = await deps.provisioning(ctx).find(orgId, idOf(req));
    if (!found) throw scimNotFound('user not found');
    return found;
  };

  const route = (method: RawRoute['method'], path: string, handler: RawRoute['handler']): RawRoute => ({
    method,
    path,
    csrfExempt: true,
    errors: 'scim',
    handler,
  });

  const groupResource = (ctx: RequestContext, g: ProvisionedGroup, status = 200) =>
    answer(status, toScimGroup(g, deps.baseUrl(ctx)), { location: `${deps.baseUrl(ctx)}/scim/v2/Groups/${g.row.id}` });

  const mustFindGroup = async (ctx: RequestContext, orgId: string, req: RawRequest): Promise<ProvisionedGroup> => {
    const found = await deps.groups(ctx).find(orgId, idOf(req));
    if (!found) throw scimNotFound('group not found');
    return found;
  };

  const groupRoutes: RawRoute[] = [
    route(
      'POST',
      '/scim/v2/Groups',
      authed(async (req, ctx, orgId) => {
        const schemas = (req.body as { schemas?: unknown } | null | undefined)?.schemas;
        if (!Array.isArray(schemas) || !schemas.includes(GROUP_SCHEMA)) {
          throw new ScimError(400, `schemas must contain ${GROUP_SCHEMA}`, 'invalidSyntax');
        }
        return groupResource(ctx, await deps.groups(ctx).create(orgId, readScimGroup(req.body)), 201);
      }),
    ),
    route(
      'GET',
      '/scim/v2/Groups',
      authed(async (req, ctx, orgId) => {
        const filter = req.query.filter;
        if (filter !== undefined && typeof filter !== 'string') {
          throw new ScimError(400, 'filter must be given once', 'invalidFilter');
        }
        const name = filter === undefined ? undefined : displayNameOfFilter(filter);
        const found = await deps.groups(ctx).list(orgId, name);
        return answer(200, listOf(found.map((g) => toScimGroup(g, deps.baseUrl(ctx)))));
      }),
    ),
    route(
      'GET',
      '/scim/v2/Groups/:id',
      authed(async (req, ctx, orgId) => groupResource(ctx, await mustFindGroup(ctx, orgId, req))),
    ),
    route(
      'PUT',
      '/scim/v2/Groups/:id',
      authed(async (req, ctx, orgId) => {
        const current = await mustFindGroup(ctx, orgId, req);
        return groupResource(ctx, await deps.groups(ctx).replace(current, readScimGroup(req.body)));
      }),
    ),
    route(
      'PATCH',
      '/scim/v2/Groups/:id',
      authed(async (req, ctx, orgId) => {
        const operations = readPatchOperations(req.body);
        const current = await mustFindGroup(ctx, orgId, req);
        const patched = applyPatch(toScimGroup(current, deps.baseUrl(ctx)), operations);
        return groupResource(ctx, await deps.groups(ctx).replace(current, readScimGroup(patched)));
      }),
    ),
    route(
      'DELETE',
      '/scim/v2/Groups/:id',
      authed(async (req, ctx, orgId) => {
        await deps.groups(ctx).remove(await mustFindGroup(ctx, orgId, req));
        return { status: 204, headers: { 'cache-control': 'no-store' } };
      }),
    ),
  ];

  const unknownPath = authed(async () => {
    throw scimNotFound('no such SCIM endpoint');
  });

  return [
    route(
      'POST',
      '/scim/v2/Users',
      authed(async (req, ctx, orgId) => {
        const body = req.body as Record<string, unknown> | undefined;
        const schemas = body && typeof body === 'object' ? (body as { schemas?: unknown }).schemas : undefined;
        if (!Array.isArray(schemas) || !schemas.includes(USER_SCHEMA)) {
          throw new ScimError(400, `schemas must contain ${USER_SCHEMA}`, 'invalidSyntax');
        }
        return resource(ctx, await deps.provisioning(ctx).create(orgId, readScimUser(body), sourceOf(ctx)), 201);
      }),
    ),
    route(
      'GET',
      '/scim/v2/Users',
      authed(async (req, ctx, orgId) => {
        const filter = req.query.filter;
        if (filter === undefined) return answer(200, listOf([]));
        if (typeof filter !== 'string') throw new ScimError(400, 'filter must be given once', 'invalidFilter');
        const found = await deps.provisioning(ctx).findByUserName(orgId, userNameOfFilter(filter));
        return answer(200, listOf(found ? [toScimUser(found.user, found.link, deps.baseUrl(ctx))] : []));
      }),
    ),
    route(
      'GET',
      '/scim/v2/Users/:id',
      authed(async (req, ctx, orgId) => resource(ctx, await mustFind(ctx, orgId, req))),
    ),
    route(
      'PUT',
      '/scim/v2/Users/:id',
      authed(async (req, ctx, orgId) => {
        const current = await mustFind(ctx, orgId, req);
        return resource(ctx, await deps.provisioning(ctx).replace(current, readScimUser(req.body), sourceOf(ctx)));
      }),
    ),
    route(
      'PATCH',
      '/scim/v2/Users/:id',
      authed(async (req, ctx, orgId) => {
        const operations = readPatchOperations(req.body);
        const current = await mustFind(ctx, orgId, req);
        const patched = applyPatch(toScimUser(current.user, current.link, deps.baseUrl(ctx)), operations);
        return resource(ctx, await deps.provisioning(ctx).replace(current, readScimUser(patched), sourceOf(ctx)));
      }),
    ),
    route(
      'DELETE',
      '/scim/v2/Users/:id',
      authed(async (req, ctx, orgId) => {
        await deps.provisioning(ctx).deactivate(await mustFind(ctx, orgId, req), sourceOf(ctx));
        return { status: 204, headers: { 'cache-control': 'no-store' } };
      }),
    ),
    route('GET', '/scim/v2/ServiceProviderConfig', open(serviceProviderConfig)),
    ...groupRoutes,
    route(
      'GET',
      '/scim/v2/ResourceTypes',
      open((url) => listOf([userResourceType(url), groupResourceType(url)])),
    ),
    route('GET', '/scim/v2/ResourceTypes/User', open(userResourceType)),
    route('GET', '/scim/v2/ResourceTypes/Group', open(groupResourceType)),
    route(
      'GET',
      '/scim/v2/Schemas',
      open((url) => listOf([userSchema(url), groupSchema(url)])),
    ),
    route('GET', '/scim/v2/Schemas/:id', async (req, ctx) => {
      // One route for both: a colon in a route path would start a parameter (the URNs hold several).
      const id = idOf(req);
      const document = id === USER_SCHEMA ? userSchema : id === GROUP_SCHEMA ? groupSchema : undefined;
      return document ? answer(200, document(deps.baseUrl(ctx))) : refused(scimNotFound('no such schema'), ctx);
    }),
    ...(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).map((m) => route(m, '/scim/v2/*', unknownPath)),
  ];
}
