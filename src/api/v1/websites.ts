// Websites API (spec 4.4, 2.6, 2.7, R-W1..R-W8). Every endpoint needs a user and both switches: the
// model switch `enable_api_website` and its own; add-domain also honours `enable_api_website_add_domain`.
import type { FastifyRequest } from 'fastify';
import { ForbiddenError, NotFoundError } from '../../domain/errors.js';
import type { User } from '../../domain/people/users.js';
import { DomainConflictError, InvalidDomainError, LastDomainError } from '../../domain/websites/store.js';
import type { Website, WebsitePatch } from '../../domain/websites/store.js';
import type { FaceServices } from '../../services.js';
import {
  createWebsiteInput,
  listWebsitesInput,
  MAX_WEBSITE_PAGE_SIZE,
  updateWebsiteInput,
  websiteDomainInput,
} from '../../domain/websites/input.js';
import { actorOf } from './actor.js';
import { adminRequired, ApiError, success } from './envelope.js';
import type { Json } from './envelope.js';
import type { EndpointPolicy } from './guard.js';
import { requestInput } from './input.js';
import { paginate } from './pagination.js';
import type { ApiRouter } from './router.js';
import { validate } from './validation.js';

const policy = (action: string, extra: Partial<EndpointPolicy> = {}): EndpointPolicy => ({
  switchKey: `svc_api_website_${action}`,
  alsoRequires: ['enable_api_website'],
  userRequired: true,
  ...extra,
});

/** A website as the API shows it (R-W1). */
export function websiteJson(website: Website): Json {
  const { fields } = website;
  return {
    id: website.id,
    user_id: website.userId,
    domain: website.domain,
    site_name: fields.site_name,
    site_logo: fields.site_logo,
    site_favicon: fields.site_favicon,
    site_slogan: fields.site_slogan,
    site_seo_keywords: fields.site_seo_keywords,
    site_seo_description: fields.site_seo_description,
    theme: fields.theme,
    homepage: fields.homepage,
    remark: fields.remark,
    meta_verification: fields.meta_verification,
    head_code: fields.head_code,
    body_code: fields.body_code,
    analytics: fields.analytics,
    license: fields.license,
    enabled_page_cache: website.enabledPageCache,
    enabled_data_cache: website.enabledDataCache,
    domain_aliases: website.aliases.map((alias) => ({
      id: alias.id,
      domain: alias.domain,
      created_at: alias.createdAt,
    })),
    translations: website.translations,
    created_at: website.createdAt,
    updated_at: website.updatedAt,
  };
}

const storeSchema = createWebsiteInput;
/** API v1 writes the fields its website JSON shows (R-W1): the home cover is API v2's and the panel's. */
const updateSchema = updateWebsiteInput.omit({ site_cover: true });
const domainSchema = websiteDomainInput;

/** Maps the website domain's errors to the answers of spec 4.4 and R-W2..R-W5. */
async function answering<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof InvalidDomainError) throw ApiError.fail(422, error.message);
    if (error instanceof DomainConflictError) throw ApiError.fail(409, error.message);
    if (error instanceof LastDomainError) throw ApiError.fail(422, error.message);
    if (error instanceof NotFoundError) throw ApiError.fail(404, error.message);
    if (error instanceof ForbiddenError) throw adminRequired();
    throw error;
  }
}

function caller(request: FastifyRequest): User {
  if (!request.apiUser) throw new Error('website endpoints run behind a guard that requires a user');
  return request.apiUser;
}

export function registerWebsiteRoutes(router: ApiRouter, services: FaceServices): void {
  const { websiteOps } = services;
  const actor = (request: FastifyRequest) => actorOf(services, request);

  const idParam = (request: FastifyRequest): number => {
    const raw = (request.params as { id?: string }).id ?? '';
    return /^\d{1,15}$/.test(raw) ? Number(raw) : 0; // anything else is an unknown website
  };

  router.route(['GET', 'POST'], '/websites', policy('index', { read: true }), async (request) => {
    const input = validate(listWebsitesInput, requestInput(request));
    const page = Math.max(1, input.page);
    const pageSize = Math.min(MAX_WEBSITE_PAGE_SIZE, Math.max(1, input.page_size));
    const result = await answering(async () =>
      websiteOps.list(await actor(request), { keyword: input.keyword, page, pageSize }),
    );
    return success('Successfully fetched websites', {
      data: result.items.map(websiteJson),
      pagination: paginate(request, page, pageSize, result.items.length, result.total),
    });
  });

  router.route(['POST'], '/websites/store', policy('store', { adminOnly: true }), async (request) => {
    const input = validate(storeSchema, requestInput(request));
    const website = await answering(async () =>
      websiteOps.create(await actor(request), {
        siteName: input.site_name,
        domain: input.domain,
        theme: input.theme,
        remark: input.remark,
        userId: caller(request).id,
      }),
    );
    return success('Successfully Created', websiteJson(website));
  });

  router.route(
    ['POST'],
    '/websites/add-domain',
    policy('add_domain', { vetoSwitch: 'enable_api_website_add_domain' }),
    async (request) => {
      const input = validate(domainSchema, requestInput(request));
      const result = await answering(async () =>
        websiteOps.addDomain(await actor(request), input.website_id, input.domain),
      );
      switch (result.outcome) {
        case 'created':
          return success('Domain alias created', {
            website_id: input.website_id,
            domain: result.domain,
            domain_alias_id: result.aliasId,
            already_exists: false,
            is_primary_domain: false,
          });
        case 'alias-exists':
          return success('Domain alias already exists for this website', {
            website_id: input.website_id,
            domain: result.domain,
            domain_alias_id: result.aliasId,
            already_exists: true,
            is_primary_domain: false,
          });
        case 'is-primary':
          return success('Domain is already the primary domain of this website', {
            website_id: input.website_id,
            domain: result.domain,
            already_exists: true,
            is_primary_domain: true,
          });
      }
    },
  );

  router.route(['POST'], '/websites/remove-domain', policy('remove_domain'), async (request) => {
    const input = validate(domainSchema, requestInput(request));
    const result = await answering(async () =>
      websiteOps.removeDomain(await actor(request), input.website_id, input.domain),
    );
    return success('Successfully Deleted', {
      website_id: input.website_id,
      removed_domain: result.removed,
      new_primary_domain: result.primary,
    });
  });

  router.route(['POST'], '/websites/update/:id', policy('update'), async (request) => {
    const raw = requestInput(request);
    // R-A7: the role check comes before validation; these fields are for admins only (R-W6).
    await answering(async () => websiteOps.requireFieldsAllowed(await actor(request), raw));
    const input = validate(updateSchema, raw) as WebsitePatch;
    const id = idParam(request);
    const website = await answering(async () => websiteOps.update(await actor(request), id, input));
    return success('Successfully Updated', websiteJson(website));
  });

  router.route(['POST'], '/websites/delete/:id', policy('delete', { adminOnly: true }), async (request) => {
    await answering(async () => websiteOps.delete(await actor(request), idParam(request)));
    return success('Successfully Deleted', []);
  });

  router.route(['GET', 'POST'], '/websites/:id', policy('show', { read: true }), async (request) => {
    const website = await answering(async () => websiteOps.show(await actor(request), idParam(request)));
    return success('Successfully fetched website', websiteJson(website));
  });
}
