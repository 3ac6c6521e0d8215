// Request body parsing: JSON (an empty body is an empty object; anything but an object is refused),
// and URL-encoded forms with nested keys (`tags[]=1`, `menu_items[0][name]=…`) read by qs.
import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import fastQueryString from 'fast-querystring';
import qs from 'qs';
import { HttpError } from './errors.js';

const QS_OPTIONS: qs.IParseOptions = { depth: 5, arrayLimit: 1000, parameterLimit: 2000 };

/** Nested keys (`filter[status]`, `tags[]`), written plainly or percent-encoded: qs's work. */
const NESTED = /[[\]]|%5[bBdD]/;
/** Past this length qs's parameter limit may matter. */
const FLAT_MAX_LENGTH = 4096;

/**
 * A query string as an object. qs reads nested keys; a flat query (nearly every request: `?page=2`)
 * goes to fast-querystring, Fastify's own parser, which answers the same for flat queries at a
 * fraction of qs's cost (issue 26 #6; test/unit/query-string.test.ts holds them to the same answers).
 * Keys qs would refuse (an empty name, or one of Object.prototype's) send the query to qs as well.
 */
export function parseQueryString(text: string): Record<string, unknown> {
  if (text.length > FLAT_MAX_LENGTH || NESTED.test(text)) return qs.parse(text, QS_OPTIONS);
  const flat = fastQueryString.parse(text) as Record<string, unknown>;
  for (const key in flat) {
    if (key === '' || key in Object.prototype) return qs.parse(text, QS_OPTIONS);
  }
  return flat;
}

export async function installBodyParsers(app: FastifyInstance): Promise<void> {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, {});
    void parseJson(request, text, (error, value: unknown) => {
      if (error) return done(error, undefined);
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        return done(new HttpError(400, 'The request body must be a JSON object'), undefined);
      }
      done(null, value);
    });
  });
  await app.register(formbody, { parser: (text) => parseQueryString(text) });
}
