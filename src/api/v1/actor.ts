// Who is calling the API: the authenticated user (or none, for an endpoint in `none` mode) and the
// website of the request's Host (R-P8). Operations decide what that actor may do.
import type { FastifyRequest } from 'fastify';
import { actorOfCredential } from '../../domain/policy.js';
import type { Actor } from '../../domain/policy.js';
import { currentWebsiteId } from '../../http/website-context.js';
import type { FaceServices } from '../../services.js';

export async function actorOf(services: FaceServices, request: FastifyRequest): Promise<Actor> {
  return actorOfCredential(
    { user: request.apiUser ?? null, key: request.apiKey ?? null },
    await currentWebsiteId(services, request),
    {
      surface: 'api',
      requestId: request.id,
      // request.ip is the client's address only when TRUST_PROXY says whose forwarding to believe.
      clientIp: request.ip ?? null,
      apiKeyId: request.apiKey?.id ?? null,
    },
  );
}
