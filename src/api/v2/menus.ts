// Named menus through API v2 (issue 23 #1, issue 25 #3): a website's menus, one menu with its tree
// (by id, or by its website and handle), create, rename, delete, and PUT of the whole tree (reorder and
// nest in one call). Reads answer an ETag; writes take If-Match (412 when the menu changed since).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { createMenuInput, replaceMenuItemsInput, updateMenuInput } from '../../domain/menus/input.js';
import type { MenuWithItems } from '../../domain/menus/operations.js';
import { MENU_ITEM_KINDS, MENU_TARGETS } from '../../domain/menus/store.js';
import type { Menu, MenuTreeItem } from '../../domain/menus/store.js';
import type { Actor } from '../../domain/policy.js';
import type { ContentAbilities } from '../../domain/resource-abilities.js';
import type { FaceServices } from '../../services.js';
import { actorOf } from './auth.js';
import {
  listOf,
  createOnce,
  etagOf,
  idOf,
  idParams,
  ifMatchVersion,
  notModified,
  queryOf,
  noContent,
} from './conventions.js';
import type { V2Router } from './router.js';
import { contentCanSchema } from './schemas.js';

const itemFields = {
  id: z.int(),
  label: z.string().describe('In `?locale=` when given, else the base text.'),
  translations: z
    .record(z.string(), z.record(z.string(), z.string()))
    .describe('`{ label: { locale: text } }`.'),
  type: z.enum(MENU_ITEM_KINDS),
  page_id: z.int().nullable(),
  post_id: z.int().nullable(),
  tag_id: z.int().nullable(),
  url: z.string().nullable().describe('A link\u2019s URL; a page\u2019s or post\u2019s path. Null for tags.'),
  target: z.enum(MENU_TARGETS),
  icon: z.string().nullable(),
};
interface MenuItemTree {
  id: number;
  label: string;
  translations: Record<string, Record<string, string>>;
  type: (typeof MENU_ITEM_KINDS)[number];
  page_id: number | null;
  post_id: number | null;
  tag_id: number | null;
  url: string | null;
  target: (typeof MENU_TARGETS)[number];
  icon: string | null;
  children: MenuItemTree[];
}
const menuItemSchema: z.ZodType<MenuItemTree> = z
  .object({
    ...itemFields,
    get children() {
      return z.array(menuItemSchema);
    },
  })
  .meta({ id: 'MenuItem' });

const menuFields = {
  id: z.int(),
  website_id: z.int(),
  handle: z.string().describe('Unique on the website: `header` (API v1\u2019s menu), `footer`, \u2026'),
  name: z.string(),
  created_at: z.string(),
  updated_at: z
    .string()
    .describe('The menu\u2019s version (its ETag): any change of it or its items moves it.'),
  can: contentCanSchema
    .optional()
    .describe('What the caller may do to it: rename, rebuild, delete (issue 34 #19).'),
};
export const menuSummarySchema = z.object(menuFields).meta({ id: 'MenuSummary' });
export const menuSchema = z.object({ ...menuFields, items: z.array(menuItemSchema) }).meta({ id: 'Menu' });
const one = z.object({ data: menuSchema });

function summaryJson(menu: Menu, can?: ContentAbilities) {
  return {
    id: menu.id,
    website_id: menu.websiteId,
    handle: menu.handle,
    name: menu.name,
    created_at: menu.createdAt,
    updated_at: menu.updatedAt,
    ...(can ? { can } : {}),
  };
}

function itemJson(item: MenuTreeItem): MenuItemTree {
  return {
    id: item.id,
    label: item.name,
    translations: item.translations,
    type: item.type as MenuItemTree['type'],
    page_id: item.pageId,
    post_id: item.postId,
    tag_id: item.tagId,
    url: item.url,
    target: item.target as MenuItemTree['target'],
    icon: item.icon,
    children: item.children.map(itemJson),
  };
}

const menuJson = (menu: MenuWithItems, can?: ContentAbilities) => ({
  ...summaryJson(menu, can),
  items: menu.items.map(itemJson),
});

const websiteParams = z.object({ id: idParams.shape.id.describe('The website\u2019s id.') });
const handleParams = z.object({
  id: idParams.shape.id.describe('The website\u2019s id.'),
  handle: z.string().max(50).describe('The menu\u2019s handle.'),
});
const showQuery = z.object({ locale: z.string().max(20).optional() }).strict();
const ifMatchNote = '`If-Match` (its ETag or `updated_at`): 412 when the menu changed since.';

export function registerMenuRoutes(router: V2Router, services: FaceServices): void {
  const ops = services.menuOps;

  /** The menu with its ETag and what the caller may do to it; a 304 when If-None-Match names it. */
  async function answer(request: FastifyRequest, reply: FastifyReply, actor: Actor, menu: MenuWithItems) {
    const etag = etagOf(menu.updatedAt);
    reply.header('etag', etag);
    if (request.method === 'GET' && notModified(request, etag)) return reply.code(304).send();
    const [can] = await services.abilities.ofMenus(actor, [menu]);
    return reply.code(200).send({ data: menuJson(menu, can) });
  }

  router.route({
    method: 'GET',
    url: '/websites/:id/menus',
    summary: 'Menus of a website',
    description: 'Without their items (at most 50 menus per website, all in one answer).',
    tags: ['menus'],
    params: websiteParams,
    response: { 200: listOf(menuSummarySchema) },
    handler: async (request) => {
      const actor = await actorOf(services, request);
      const menus = await ops.list(actor, idOf(request));
      const cans = await services.abilities.ofMenus(actor, menus);
      return { data: menus.map((menu, index) => summaryJson(menu, cans[index])) };
    },
  });

  router.route({
    method: 'POST',
    url: '/websites/:id/menus',
    summary: 'Create a menu',
    description:
      'An empty menu; PUT its items next. A handle the website already has is a 409. `Idempotency-Key` ' +
      'makes a retry answer the first result.',
    tags: ['menus'],
    params: websiteParams,
    body: createMenuInput.strict(),
    response: { 201: one },
    handler: async (request, reply) => {
      const actor = await actorOf(services, request);
      // A retry with the same key answers the first result instead of a 409 for the taken handle.
      return createOnce(services, request, reply, {
        scope: `api.v2.menus.create:${idOf(request)}`,
        create: () => ops.create(actor, idOf(request), request.body),
        json: (menu) => menuJson(menu),
        location: (id) => `/api/v2/menus/${id}`,
      });
    },
  });

  router.route({
    method: 'GET',
    url: '/websites/:id/menus/:handle',
    summary: 'Get a menu by its handle',
    tags: ['menus'],
    params: handleParams,
    querystring: showQuery,
    response: { 200: one },
    handler: async (request, reply) => {
      const { handle } = request.params as { handle: string };
      const { locale } = queryOf(showQuery, request);
      const actor = await actorOf(services, request);
      const menu = await ops.showByHandle(actor, idOf(request), handle, locale);
      return answer(request, reply, actor, menu);
    },
  });

  router.route({
    method: 'GET',
    url: '/menus/:id',
    summary: 'Get a menu',
    description: 'With its items as a tree and an ETag (`If-None-Match`: 304).',
    tags: ['menus'],
    params: idParams,
    querystring: showQuery,
    response: { 200: one },
    handler: async (request, reply) => {
      const { locale } = queryOf(showQuery, request);
      const actor = await actorOf(services, request);
      return answer(request, reply, actor, await ops.show(actor, idOf(request), locale));
    },
  });

  router.route({
    method: 'PATCH',
    url: '/menus/:id',
    summary: 'Rename a menu',
    description: `Its \`name\` or \`handle\`. ${ifMatchNote}`,
    tags: ['menus'],
    params: idParams,
    body: updateMenuInput.strict(),
    response: { 200: one },
    handler: async (request, reply) => {
      const actor = await actorOf(services, request);
      const menu = await ops.update(actor, idOf(request), request.body, ifMatchVersion(request));
      return answer(request, reply, actor, menu);
    },
  });

  router.route({
    method: 'DELETE',
    url: '/menus/:id',
    summary: 'Delete a menu',
    description: `With its items. ${ifMatchNote}`,
    tags: ['menus'],
    params: idParams,
    response: { 204: z.null() },
    handler: noContent(async (request) =>
      ops.delete(await actorOf(services, request), idOf(request), ifMatchVersion(request)),
    ),
  });

  router.route({
    method: 'PUT',
    url: '/menus/:id/items',
    summary: 'Replace a menu\u2019s items',
    description:
      'The whole tree in one call, flat and in display order: an item names its parent by the parent\u2019s ' +
      '`ref` (an item before it). Pages, posts and tags must be on the menu\u2019s website; cycles, ' +
      `nesting deeper than 5 levels and unsafe URLs are refused per field. ${ifMatchNote}`,
    tags: ['menus'],
    params: idParams,
    body: replaceMenuItemsInput.strict(),
    response: { 200: one },
    handler: async (request, reply) => {
      const actor = await actorOf(services, request);
      const menu = await ops.replaceItems(actor, idOf(request), request.body, ifMatchVersion(request));
      return answer(request, reply, actor, menu);
    },
  });
}
