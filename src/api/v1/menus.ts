// Menus API (spec 4.3, R-M1..R-M3). Index and store are placeholders; sync replaces a website's menu
// (admin only); show fetches one item with its page.
//
// Authentication: menus have no switch of their own, only the global one (R-A2). The index
// placeholder is public (it returns nothing); the store placeholder writes the request to the log, so
// it needs a user in the mode `svc_api_menu_store_should_auth` (default simple); show uses
// `svc_api_menu_show_should_auth` (R-A3); sync always needs an admin, in the mode
// `svc_api_menu_sync_should_auth` (simple or basic).
import type { FastifyRequest } from 'fastify';
import type { MenuItemWithPage } from '../../domain/menus/store.js';
import type { FaceServices } from '../../services.js';
import { actorOf } from './actor.js';
import { ApiError, success } from './envelope.js';
import type { Json } from './envelope.js';
import { requestInput } from './input.js';
import type { ApiRouter } from './router.js';

/** A menu item as the API shows it (spec 2.5, R-M3). */
export function menuItemJson(item: MenuItemWithPage): Json {
  return {
    id: item.id,
    website_id: item.websiteId,
    order: item.order,
    name: item.name,
    type: item.type,
    page_id: item.pageId,
    url: item.url,
    target: item.target,
    icon: item.icon,
    parent_id: item.parentId,
    page: item.page,
    created_at: item.createdAt,
    updated_at: item.updatedAt,
  };
}

/**
 * What the store placeholder logs of a request body: each field's name and size (the characters of
 * its JSON), never a value, so neither a token nor anything a client sends reaches the logs
 * (issue 21 #12).
 */
export function fieldSizes(body: unknown): Record<string, number> | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  return Object.fromEntries(
    Object.entries(body)
      .filter(([key]) => key !== 'api_token')
      .slice(0, 50)
      .map(([key, value]) => [key.slice(0, 64), JSON.stringify(value)?.length ?? 0]),
  );
}

const menuNotFound = () => ApiError.fail(404, 'Menu not found');

function menuId(request: FastifyRequest): number | null {
  const raw = (request.params as { id?: string }).id ?? '';
  return /^\d{1,15}$/.test(raw) ? Number(raw) : null;
}

export function registerMenuRoutes(router: ApiRouter, services: FaceServices): void {
  router.route(['GET', 'POST'], '/menus', { switchKey: null, authKey: null, read: true }, async () =>
    success('Successfully fetched menus', []),
  );

  router.route(
    ['POST'],
    '/menus/store',
    { switchKey: null, authKey: 'svc_api_menu_store' },
    async (request) => {
      request.log.info({ menuStore: fieldSizes(request.body) }, 'menu store request');
      return success('Menu store request logged', []);
    },
  );

  router.route(
    ['POST'],
    '/menus/sync',
    { switchKey: null, authKey: 'svc_api_menu_sync', adminOnly: true },
    async (request) => {
      // The operation checks the request (one 422 for all its findings) and answers 404 for an
      // unknown website, 403 for one the caller may not manage.
      const result = await services.menuOps.sync(await actorOf(services, request), requestInput(request));
      return success('Menu synchronized successfully', {
        website_id: result.websiteId,
        items_created: result.itemsCreated,
        items_deleted: result.itemsDeleted,
      });
    },
  );

  router.route(
    ['GET', 'POST'],
    '/menus/:id',
    { switchKey: null, authKey: 'svc_api_menu_show', read: true },
    async (request) => {
      const id = menuId(request);
      const item = id === null ? null : await services.menuOps.item(id);
      if (!item) throw menuNotFound();
      return success('Successfully fetched menu', menuItemJson(item));
    },
  );
}
