// "The current website context": the website that the request's Host (primary domain or alias, port
// ignored) belongs to; for an unknown host, the website named by the setting `default_website_id`,
// if any. Resolved once per request, through the cache (flushed on every website or domain change).
import type { FastifyRequest } from 'fastify';
import type { Website } from '../domain/websites/store.js';
import type { FaceServices } from '../services.js';
import { requestSlot } from './request-slots.js';

export const DEFAULT_WEBSITE_SETTING = 'default_website_id';

const resolved = requestSlot<Promise<Website | null>>('website');

async function resolve(services: FaceServices, request: FastifyRequest): Promise<Website | null> {
  const website = await services.websiteLookup.resolveHost(request.hostname);
  if (website) return website;
  const fallback = (await services.settings.get(DEFAULT_WEBSITE_SETTING))?.trim();
  return fallback && /^\d+$/.test(fallback) ? services.websiteLookup.find(Number(fallback)) : null;
}

export function currentWebsite(services: FaceServices, request: FastifyRequest): Promise<Website | null> {
  let website = resolved.get(request);
  if (!website) {
    website = resolve(services, request);
    resolved.set(request, website);
  }
  return website;
}

export async function currentWebsiteId(
  services: FaceServices,
  request: FastifyRequest,
): Promise<number | null> {
  return (await currentWebsite(services, request))?.id ?? null;
}
