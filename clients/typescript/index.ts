// A typed client of Folio's API v2: openapi-fetch over the types generated from the API's OpenAPI
// document (schema.d.ts, `npm run client:generate`). Every path, parameter, body and answer is typed.
//
//   const folio = createFolioClient('https://example.com', process.env.FOLIO_KEY!);
//   const { data, error } = await folio.GET('/api/v2/posts', { params: { query: { per_page: 5 } } });
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

export type { components, paths } from './schema.js';

/** A client for the Folio installation at `baseUrl`, calling as the key or token given. */
export function createFolioClient(baseUrl: string, credential: string, init: { fetch?: typeof fetch } = {}) {
  return createClient<paths>({
    baseUrl,
    headers: { authorization: `Bearer ${credential}` },
    ...(init.fetch ? { fetch: init.fetch } : {}),
  });
}

export type FolioClient = ReturnType<typeof createFolioClient>;
