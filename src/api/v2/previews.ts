// Preview links and autosaves through API v2 (issue 37 #2, #3). Those who may change a post or page
// issue and revoke its preview links (the token is shown once) and keep their autosave of it; a
// headless front end reads draft content with a token (`GET /preview/{token}`, no other credential:
// a bad, expired or revoked token is a 404 that says nothing of the post). A thin face over
// domain/revisions/previews.ts and domain/revisions/autosaves.ts.
import { z } from 'zod';
import { autosaveInput } from '../../domain/revisions/autosaves.js';
import type { Autosave } from '../../domain/revisions/autosaves.js';
import type { ContentKind } from '../../domain/revisions/content-access.js';
import { issuePreviewInput } from '../../domain/revisions/previews.js';
import type { PreviewLink, PreviewTarget } from '../../domain/revisions/previews.js';
import { siteOrigin } from '../../domain/websites/urls.js';
import type { FaceServices } from '../../services.js';
import { actorOf } from './auth.js';
import { pathId, listOf, idOf, idParams, noContent } from './conventions.js';
import { notFound } from './problem.js';
import { problemSchema } from './schemas.js';
import type { V2Router } from './router.js';

const linkSchema = z
  .object({
    id: z.int(),
    type: z.enum(['post', 'page']),
    resource_id: z.int(),
    autosave: z.boolean().describe('The link shows its issuer\u2019s autosave, not the saved version.'),
    created_by: z.int().nullable(),
    created_at: z.string(),
    expires_at: z.string(),
  })
  .meta({ id: 'PreviewLink' });
const issuedSchema = linkSchema
  .extend({
    token: z.string().describe('Shown once: only its hash is stored.'),
    url: z.string().describe('The preview on the website\u2019s theme.'),
  })
  .meta({ id: 'IssuedPreviewLink' });

const autosaveSchema = z
  .object({
    type: z.enum(['post', 'page']),
    resource_id: z.int(),
    title: z.string().optional(),
    content: z.string().optional(),
    excerpt: z.string().nullable().optional(),
    translations: z
      .record(
        z.string(),
        z.object({
          title: z.string().optional(),
          content: z.string().optional(),
          excerpt: z.string().nullable().optional(),
        }),
      )
      .optional()
      .describe(
        'The other locales\u2019 text, by locale code (the fields above are the default locale\u2019s).',
      ),
    base_version: z.string().nullable().describe('The version of the post the editor started from.'),
    updated_at: z.string(),
    newer: z.boolean().describe('Saved after the post\u2019s current version: worth offering on reopen.'),
  })
  .meta({ id: 'Autosave' });

const previewContentSchema = z
  .object({
    type: z.enum(['post', 'page']),
    id: z.int(),
    title: z.string(),
    slug: z.string(),
    content: z.string().nullable(),
    excerpt: z.string().nullable(),
    status: z.string(),
    published_at: z.string().nullable(),
    updated_at: z.string(),
    website_ids: z.array(z.int()),
    translations: z.record(z.string(), z.record(z.string(), z.string())),
    autosave: z.boolean(),
    expires_at: z.string(),
  })
  .meta({ id: 'PreviewContent' });

function linkJson(link: PreviewLink) {
  return {
    id: link.id,
    type: link.resourceType,
    resource_id: link.resourceId,
    autosave: link.autosave,
    created_by: link.createdBy,
    created_at: link.createdAt,
    expires_at: link.expiresAt,
  };
}

function autosaveJson(autosave: Autosave) {
  return {
    type: autosave.resourceType,
    resource_id: autosave.resourceId,
    ...autosave.fields,
    base_version: autosave.baseVersion,
    updated_at: autosave.updatedAt,
    newer: autosave.newer,
  };
}

function contentJson(target: PreviewTarget) {
  const common = { autosave: target.link.autosave, expires_at: target.link.expiresAt };
  if (target.kind === 'post') {
    const post = target.post;
    return {
      type: 'post' as const,
      id: post.id,
      title: post.title,
      slug: post.slug,
      content: post.content,
      excerpt: post.excerpt,
      status: post.status,
      published_at: post.publishedAt,
      updated_at: post.updatedAt,
      website_ids: post.websiteIds,
      translations: post.translations,
      ...common,
    };
  }
  const page = target.page;
  return {
    type: 'page' as const,
    id: page.id,
    title: page.title,
    slug: page.slug,
    content: page.content,
    excerpt: null,
    status: page.status,
    published_at: null,
    updated_at: page.updatedAt,
    website_ids: page.websiteIds,
    translations: page.translations,
    ...common,
  };
}

const resourceParams = z.object({
  id: pathId('The post or page id.'),
});

export function registerPreviewRoutes(router: V2Router, services: FaceServices): void {
  const previews = services.previews;
  const autosaves = services.autosaves;

  /** The address of a preview: on the request's website when the post shows there, else its first. */
  const urlOf = async (websiteId: number | null, shownOn: readonly number[], token: string) => {
    const id =
      websiteId !== null && (shownOn.length === 0 || shownOn.includes(websiteId)) ? websiteId : shownOn[0];
    const website = id === undefined ? null : await services.websiteLookup.find(id);
    const origin = website ? siteOrigin(website, services.config.appUrl) : services.config.appUrl;
    return `${origin.replace(/\/$/, '')}/preview/${token}`;
  };

  for (const kind of ['post', 'page'] as ContentKind[]) {
    const base = kind === 'post' ? '/posts/:id' : '/pages/:id';
    const tag = kind === 'post' ? 'posts' : 'pages';
    router.route({
      method: 'POST',
      url: `${base}/preview-links`,
      summary: `Issue a preview link to a ${kind}`,
      description:
        `A signed link that anyone holding it may open until it expires (setting \`preview_link_days\`, ` +
        `default 7) or is revoked: the ${kind} on its website\u2019s theme, never cached, never indexed. ` +
        'The token is shown once. `autosave: true`: the link shows your autosave instead. Only for ' +
        `a ${kind} that is not public yet (or an autosave).`,
      tags: [tag],
      params: resourceParams,
      body: issuePreviewInput.optional(),
      response: { 201: z.object({ data: issuedSchema }) },
      handler: async (request, reply) => {
        const actor = await actorOf(services, request);
        const { id } = request.params as { id: string };
        const { link, token, websiteIds } = await previews.issue(actor, kind, id, request.body ?? {});
        return reply.code(201).send({
          data: { ...linkJson(link), token, url: await urlOf(actor.websiteId, websiteIds, token) },
        });
      },
    });

    router.route({
      method: 'GET',
      url: `${base}/preview-links`,
      summary: `The live preview links of a ${kind}`,
      description: 'Those not expired nor revoked, newest first (their tokens are never shown again).',
      tags: [tag],
      params: resourceParams,
      response: { 200: listOf(linkSchema) },
      handler: async (request) => {
        const actor = await actorOf(services, request);
        const { id } = request.params as { id: string };
        return { data: (await previews.list(actor, kind, id)).map(linkJson) };
      },
    });

    router.route({
      method: 'GET',
      url: `${base}/autosave`,
      summary: `Your autosave of a ${kind}`,
      description: 'One per post and user; `newer` when it was saved after the post\u2019s current version.',
      tags: [tag],
      params: resourceParams,
      response: { 200: z.object({ data: autosaveSchema }), 404: problemSchema },
      handler: async (request) => {
        const actor = await actorOf(services, request);
        const { id } = request.params as { id: string };
        const autosave = await autosaves.find(actor, kind, id);
        if (!autosave) throw notFound('You have no autosave of it.');
        return { data: autosaveJson(autosave) };
      },
    });

    router.route({
      method: 'PUT',
      url: `${base}/autosave`,
      summary: `Autosave a ${kind}`,
      description:
        'Keeps what your editor holds (title, content, excerpt): never what readers see, not a ' +
        'revision. A later autosave replaces it; saving the post clears it.',
      tags: [tag],
      params: resourceParams,
      body: autosaveInput,
      response: { 200: z.object({ data: autosaveSchema }) },
      handler: async (request) => {
        const actor = await actorOf(services, request);
        const { id } = request.params as { id: string };
        return { data: autosaveJson(await autosaves.save(actor, kind, id, request.body)) };
      },
    });

    router.route({
      method: 'DELETE',
      url: `${base}/autosave`,
      summary: `Discard your autosave of a ${kind}`,
      tags: [tag],
      params: resourceParams,
      response: { 204: z.null() },
      handler: noContent(async (request) => {
        const { id } = request.params as { id: string };
        await autosaves.discard(await actorOf(services, request), kind, id);
      }),
    });
  }

  router.route({
    method: 'DELETE',
    url: '/preview-links/:id',
    summary: 'Revoke a preview link',
    description: 'From then on the link answers 404.',
    tags: ['posts'],
    params: idParams,
    response: { 204: z.null() },
    handler: noContent(async (request) => previews.revoke(await actorOf(services, request), idOf(request))),
  });

  router.route({
    method: 'GET',
    url: '/preview/:token',
    summary: 'Draft content by a preview token',
    description:
      'For headless front ends: the post or page a preview link shows, with no other credential. ' +
      'A malformed, unknown, expired or revoked token, or a deleted post, is the same 404.',
    tags: ['posts'],
    public: true,
    params: z.object({ token: z.string().max(100) }),
    response: { 200: z.object({ data: previewContentSchema }), 404: problemSchema },
    handler: async (request, reply) => {
      reply.header('cache-control', 'private, no-store');
      reply.header('x-robots-tag', 'noindex');
      const { token } = request.params as { token: string };
      return { data: contentJson(await previews.resolve(token)) };
    },
  });
}
