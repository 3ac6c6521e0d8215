// Every /api/v1 route. Each resource registers its routes on one ApiRouter.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { ApiError } from './envelope.js';
import { registerPostRoutes } from './posts.js';
import { ApiRouter } from './router.js';
import { registerUpdateRoutes } from './updates.js';

export function apiV1(services: Services) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    const router = new ApiRouter(app, services);
    registerPostRoutes(router, services);
    registerUpdateRoutes(router, services);
    router.finish();

    app.setNotFoundHandler(async () => {
      throw ApiError.fail(404, 'Not found');
    });
  };
}
