// Every /api/v1 route. Each resource registers its routes on one ApiRouter.
import type { FastifyInstance } from 'fastify';
import type { FaceServices } from '../../services.js';
import { registerMenuRoutes } from './menus.js';
import { registerPageRoutes } from './pages.js';
import { registerPostRoutes } from './posts.js';
import { apiV1Document } from './openapi.js';
import { ApiRouter } from './router.js';
import { registerTagRoutes } from './tags.js';
import { registerUpdateRoutes } from './updates.js';
import { registerWebsiteRoutes } from './websites.js';

export function apiV1(services: FaceServices) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    const router = new ApiRouter(app, services);
    registerPostRoutes(router, services);
    registerWebsiteRoutes(router, services);
    registerTagRoutes(router, services);
    registerMenuRoutes(router, services);
    registerPageRoutes(router);
    registerUpdateRoutes(router, services);
    router.finish();
    // The contract as OpenAPI 3.1: open to all, like the spec it describes.
    const document = apiV1Document(router.routes);
    app.get('/openapi.json', async () => document);
  };
}
