// Updates API (spec 4.6, 3.2; R-U1..R-U3). Bodies deviate from the envelope: only `status`,
// `message`, and `version` (trigger success) or `progress` (spec 2.1).
import type { FaceServices } from '../../services.js';
import { actorOf } from './actor.js';
import { ApiError } from './envelope.js';
import type { Json } from './envelope.js';
import { requestInput } from './input.js';
import type { ApiRouter } from './router.js';

const fail = (code: number, message: string) => new ApiError(code, { status: 'fail', message });
export const invalidUpdateRequest = () => fail(400, 'Invalid update request');

export function registerUpdateRoutes(router: ApiRouter, services: FaceServices): void {
  // No switch of its own (R-A2); admin only, so a user is always needed (R-A4). Basic mode when
  // `svc_api_update_should_auth` is `basic`.
  router.route(
    ['POST'],
    '/update',
    { switchKey: null, authKey: 'svc_api_update', adminOnly: true },
    async (request, reply): Promise<Json> => {
      const input = requestInput(request);
      const result = await services.systemOps.triggerUpdate(
        await actorOf(services, request),
        { package: input.package, version: input.version },
        request.log,
      );
      // The server began stopping during the run: do not keep this connection alive, or the
      // graceful shutdown would wait for the client's keep-alive to time out.
      if (services.systemOps.stopping) reply.header('connection', 'close');
      switch (result.outcome) {
        case 'updated':
          return { status: 'success', message: 'Successfully updated', version: result.version };
        case 'disabled':
          throw fail(403, 'Core update disabled');
        case 'invalid':
          throw invalidUpdateRequest();
        case 'busy':
          throw fail(409, 'Core update in progress');
        case 'failed':
          throw fail(500, `Update failed: ${result.reason}`);
      }
    },
    {
      serverErrorBody: (message) => ({
        status: 'fail',
        message: message.replace(/^Server Error: /, 'Update failed: '),
      }),
    },
  );

  // Auth mode from `svc_api_update_progress_should_auth` (R-A3); `itemId` required (R-U3).
  router.route(
    ['POST'],
    '/update/progress',
    { switchKey: null, authKey: 'svc_api_update_progress', read: true },
    async (request): Promise<Json> => {
      const { itemId } = requestInput(request);
      if (typeof itemId !== 'string' || itemId.trim() === '') throw invalidUpdateRequest();
      const progress = await services.systemOps.updateProgress(itemId.trim());
      return { status: 'success', message: 'Successfully fetched updating progress', progress };
    },
    { serverErrorBody: (message) => ({ status: 'fail', message }) },
  );
}
