// Request body parsing: JSON (an empty body is an empty object; anything but an object is refused),
// and URL-encoded forms with nested keys (`tags[]=1`, `menu_items[0][name]=…`) read by qs.
import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import qs from 'qs';
import { HttpError } from './errors.js';

const QS_OPTIONS: qs.IParseOptions = { depth: 5, arrayLimit: 1000, parameterLimit: 2000 };

export function parseQueryString(text: string): Record<string, unknown> {
  return qs.parse(text, QS_OPTIONS);
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
