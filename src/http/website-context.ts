// "The current website context": the website that the request's Host (primary domain or alias,
// port ignored) belongs to, or null. Resolved once per request.
import type { FastifyRequest } from 'fastify';
import type { Services } from '../services.js';

const resolved = new WeakMap<FastifyRequest, Promise<number | null>>();

export function currentWebsiteId(services: Services, request: FastifyRequest): Promise<number | null> {
  let websiteId = resolved.get(request);
  if (!websiteId) {
    websiteId = services.websites.findIdByDomain(request.hostname);
    resolved.set(request, websiteId);
  }
  return websiteId;
}
