// Tags and categories through API v2: a type's tree, one tag, create, change (rename, translate, move
// in the tree, rebind), delete (409 while in use, unless `?force=true`), merge into another.
import { z } from 'zod';
import { createTagInput, mergeTagInput, updateTagInput } from '../../domain/tags/input.js';
import type { Tag, TagNode } from '../../domain/tags/store.js';
import { DEFAULT_TAG_TYPE } from '../../domain/tags/store.js';
import type { FaceServices } from '../../services.js';
import { actorOf } from './auth.js';
import { listOf, createOnce, forceQuery, idOf, idParams, queryOf, noContent, forced } from './conventions.js';
import { tagFieldsJson } from '../tag-json.js';
import type { V2Router } from './router.js';

const tagFields = {
  id: z.int(),
  name: z.string(),
  slug: z.string(),
  type: z.string(),
  parent_id: z.int().nullable(),
  description: z.string().nullable(),
  icon: z.string().nullable(),
  sort: z.int(),
  created_at: z.string(),
  updated_at: z.string(),
};
const tagSchema = z.object({ ...tagFields, website_ids: z.array(z.int()).optional() }).meta({ id: 'Tag' });
interface TagTree extends z.infer<typeof tagSchema> {
  children: TagTree[];
}
const tagTreeSchema: z.ZodType<TagTree> = z
  .object({
    ...tagFields,
    get children() {
      return z.array(tagTreeSchema);
    },
  })
  .meta({ id: 'TagTreeNode' });

function tagJson(tag: Tag, websiteIds?: number[]) {
  return { ...tagFieldsJson(tag), ...(websiteIds ? { website_ids: websiteIds } : {}) };
}

function treeJson(node: TagNode): TagTree {
  return { ...tagJson(node), children: node.children.map(treeJson) };
}

const treeQuery = z
  .object({
    filter: z
      .object({ type: z.string().max(50).optional() })
      .strict()
      .optional(),
    locale: z.string().max(20).optional(),
  })
  .strict();
const one = z.object({ data: tagSchema });

export function registerTagRoutes(router: V2Router, services: FaceServices): void {
  const ops = services.tagOps;
  /** A tag after a write, with the websites it is bound to. */
  const written = async (tag: Tag) => tagJson(tag, await ops.websitesOf(tag.id));

  router.route({
    method: 'GET',
    url: '/tags',
    summary: 'The tree of a tag type',
    description: `\`filter[type]\` (default ${DEFAULT_TAG_TYPE}); names in \`locale\`, else the base name.`,
    tags: ['tags'],
    querystring: treeQuery,
    response: { 200: listOf(tagTreeSchema) },
    handler: async (request) => {
      const query = queryOf(treeQuery, request);
      const locale = query.locale ?? ((await services.settings.get('default_locale'))?.trim() || 'en');
      const { websiteId } = await actorOf(services, request);
      const tree = await ops.tree(query.filter?.type ?? DEFAULT_TAG_TYPE, locale, websiteId);
      return { data: tree.map(treeJson) };
    },
  });

  router.route({
    method: 'GET',
    url: '/tags/:id',
    summary: 'Get a tag',
    tags: ['tags'],
    params: idParams,
    response: { 200: one },
    handler: async (request) => {
      const tag = await ops.show(idOf(request));
      return { data: tagJson(tag, tag.websiteIds) };
    },
  });

  router.route({
    method: 'POST',
    url: '/tags',
    summary: 'Create a tag',
    description:
      'A name already used in the type is a 409. `Idempotency-Key` makes a retry answer the first result.',
    tags: ['tags'],
    body: createTagInput.strict(),
    response: { 201: one },
    handler: async (request, reply) => {
      const actor = await actorOf(services, request);
      return createOnce(services, request, reply, {
        scope: 'api.v2.tags.create',
        create: async () => written(await ops.create(actor, request.body)),
        json: (json) => json,
        location: (id) => `/api/v2/tags/${id}`,
      });
    },
  });

  router.route({
    method: 'PATCH',
    url: '/tags/:id',
    summary: 'Change a tag',
    description:
      'Rename or translate (`name`), move (`parent_id`, `null` for a root), reorder (`sort`), rebind.',
    tags: ['tags'],
    params: idParams,
    body: updateTagInput.strict(),
    response: { 200: one },
    handler: async (request) => ({
      data: await written(await ops.update(await actorOf(services, request), idOf(request), request.body)),
    }),
  });

  router.route({
    method: 'DELETE',
    url: '/tags/:id',
    summary: 'Delete a tag',
    description: 'While it tags anything or has children: 409 naming what uses it, unless `?force=true`.',
    tags: ['tags'],
    params: idParams,
    querystring: forceQuery,
    response: { 204: z.null() },
    handler: noContent(async (request) =>
      ops.delete(await actorOf(services, request), idOf(request), forced(request)),
    ),
  });

  router.route({
    method: 'POST',
    url: '/tags/:id/merge',
    summary: 'Merge a tag into another',
    description: 'Everything it tagged, and its children, go to `into` (same type); then it is deleted.',
    tags: ['tags'],
    params: idParams,
    body: mergeTagInput.strict(),
    response: { 200: one },
    handler: async (request) => ({
      data: await written(await ops.merge(await actorOf(services, request), idOf(request), request.body)),
    }),
  });
}

/** A tag as this API shows it, for webhook payloads (issue 38). */
export async function tagResource(services: FaceServices, id: string): Promise<unknown> {
  const tag = await services.tagOps.show(Number(id));
  return tagJson(tag, tag.websiteIds);
}
