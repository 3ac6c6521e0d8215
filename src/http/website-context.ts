// "The current website context": the website that the request's Host (primary domain or alias, port
// ignored) belongs to; for an unknown host, the website named by the setting `default_website_id`,
// if any. Resolved once per request, through the cache (flushed on every website or domain change).
import type { FastifyRequest } from 'fastify';
import type { Website } from '../domain/websites.js';
import type { Services } from '../services.js';

export const DEFAULT_WEBSITE_SETTING = 'default_website_id';

const resolved = new WeakMap<FastifyRequest, Promise<Website | null>>();

async function resolve(services: Services, request: FastifyRequest): Promise<Website | null> {
  const website = await services.websites.resolveHost(request.hostname);
  if (website) return website;
  const fallback = (await services.settings.get(DEFAULT_WEBSITE_SETTING))?.trim();
  return fallback && /^\d+$/.test(fallback) ? services.websites.find(Number(fallback)) : null;
}

export function currentWebsite(services: Services, request: FastifyRequest): Promise<Website | null> {
  let website = resolved.get(request);
  if (!website) {
    website = resolve(services, request);
    resolved.set(request, website);
  }
  return website;
}

export async function currentWebsiteId(services: Services, request: FastifyRequest): Promise<number | null> {
  return (await currentWebsite(services, request))?.id ?? null;
}
