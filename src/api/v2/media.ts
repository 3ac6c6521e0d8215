// The media library through API v2 (issue 23, and the admin panel's Media screen, issue 24 #4): a
// website's items (`?q=` in file names, alt texts and captions, `filter[type]`, `sort`), upload
// (multipart, one file or several), one item with its ETag, its alt text and caption (If-Match),
// where it is used (`?include=usage` or `/media/{id}/usage`), delete (409 while used, unless
// `?force=true`). Every route is on the Host's website unless `website` (lists: `filter[website]`)
// names another.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { MEDIA_TYPES, SORTABLE_MEDIA_FIELDS, mediaText } from '../../domain/media/library.js';
import type { MediaItem, MediaUsage } from '../../domain/media/library.js';
import { MAX_UPLOAD_FILES, updateMediaInput, uploadMediaInput } from '../../domain/media/operations.js';
import type { UploadedFileLike } from '../../domain/media/operations.js';
import type { FaceServices } from '../../services.js';
import { actorOf, callerOf } from './auth.js';
import {
  etagOf,
  idOf,
  idParams,
  ifMatchVersion,
  listOf,
  notModified,
  pageMeta,
  pagedListOf,
  paginationQuery,
  queryOf,
  selectFields,
  sortOf,
  websiteParam,
  noContent,
  pagedQueryOf,
} from './conventions.js';
import type { V2Router } from './router.js';
import { problemSchema } from './schemas.js';

type Json = Record<string, unknown>;

export const mediaVariantSchema = z
  .object({
    name: z.string().describe('`webp` (same size) or `w<width>` (a smaller copy).'),
    url: z.string(),
    mime_type: z.string(),
    width: z.int().nullable(),
    height: z.int().nullable(),
    size: z.int(),
  })
  .meta({ id: 'MediaVariant' });

export const mediaUsageSchema = z
  .object({
    posts: z.array(
      z.object({
        id: z.int(),
        title: z.string(),
        type: z.string().describe('`post`, or `link` for a link of the directory.'),
        status: z.string(),
        as: z.array(z.enum(['thumbnail', 'content'])),
      }),
    ),
    pages: z.array(
      z.object({ id: z.int(), title: z.string(), status: z.string(), as: z.array(z.enum(['content'])) }),
    ),
    websites: z.array(
      z.object({ id: z.int(), name: z.string(), as: z.array(z.enum(['logo', 'favicon', 'cover'])) }),
    ),
    elsewhere: z.int().describe('Uses by posts, pages and websites this website does not show.'),
  })
  .meta({ id: 'MediaUsage' });

export const mediaSchema = z
  .object({
    id: z.int(),
    file_name: z.string(),
    url: z.string(),
    mime_type: z.string(),
    type: z.enum(MEDIA_TYPES),
    size: z.int().describe('Bytes.'),
    width: z.int().nullable(),
    height: z.int().nullable(),
    alt: z.string().nullable(),
    caption: z.string().nullable(),
    translations: z
      .record(z.string(), z.record(z.string(), z.string()))
      .optional()
      .describe('Without `?locale=`: `{ alt: { locale: text }, caption: { … } }`.'),
    variants: z.array(mediaVariantSchema),
    user_id: z.int().nullable().describe('Who uploaded it.'),
    website_ids: z.array(z.int()).describe('Empty: every website\u2019s (thumbnails, downloaded images).'),
    created_at: z.string(),
    updated_at: z.string(),
    usage: mediaUsageSchema.optional().describe('With `?include=usage`.'),
  })
  .partial()
  .meta({ id: 'Media' });

const FIELDS = Object.keys(mediaSchema.shape);
const one = z.object({ data: mediaSchema });

const includeParam = z.enum(['usage']).optional().describe('`usage`: where each item is used.');
const localeParam = z.string().max(20).optional().describe('One locale\u2019s alt text and caption.');

const listQuery = z
  .object({
    ...paginationQuery,
    q: z.string().max(100).optional().describe('Words in file names, alt texts and captions.'),
    sort: z
      .string()
      .max(40)
      .optional()
      .describe(
        `One of ${SORTABLE_MEDIA_FIELDS.join(', ')}; \`-\` first for descending (default -created_at).`,
      ),
    filter: z
      .object({ type: z.enum(MEDIA_TYPES).optional(), website: websiteParam })
      .strict()
      .optional(),
    fields: z.string().max(300).optional().describe('Only these fields (comma-separated).'),
    include: includeParam,
    locale: localeParam,
  })
  .strict();
const showQuery = z.object({ include: includeParam, locale: localeParam, website: websiteParam }).strict();
const websiteQuery = z.object({ website: websiteParam }).strict();
const deleteQuery = z.object({ force: z.enum(['true', 'false']).optional(), website: websiteParam }).strict();

function usageJson(usage: MediaUsage) {
  return { posts: usage.posts, pages: usage.pages, websites: usage.websites, elsewhere: usage.elsewhere };
}

function mediaJson(item: MediaItem, locale: string | undefined, usage?: MediaUsage): Json {
  return {
    id: item.id,
    file_name: item.fileName,
    url: item.url,
    mime_type: item.mimeType,
    type: item.type,
    size: item.size,
    width: item.width,
    height: item.height,
    alt: locale === undefined ? item.alt : mediaText(item, 'alt', locale),
    caption: locale === undefined ? item.caption : mediaText(item, 'caption', locale),
    ...(locale === undefined ? { translations: item.translations } : {}),
    variants: item.variants.map((variant) => ({
      name: variant.name,
      url: variant.url,
      mime_type: variant.mimeType,
      width: variant.width,
      height: variant.height,
      size: variant.size,
    })),
    user_id: item.userId,
    website_ids: item.websiteIds,
    created_at: item.createdAt,
    updated_at: item.updatedAt,
    ...(usage ? { usage: usageJson(usage) } : {}),
  };
}

/** The files of an upload, as fingerprinted for an Idempotency-Key (names and digests, not bytes). */
function uploadFingerprint(body: unknown): unknown {
  const files = (body as { files?: UploadedFileLike | UploadedFileLike[] } | null)?.files;
  const list = Array.isArray(files) ? files : files ? [files] : [];
  return list.map((file) => ({
    name: file.filename,
    sha256: createHash('sha256').update(file.data).digest('hex'),
  }));
}

export function registerMediaRoutes(router: V2Router, services: FaceServices): void {
  const ops = services.mediaOps;

  const answerOne = async (
    request: FastifyRequest,
    reply: FastifyReply,
    item: MediaItem,
    options: { locale?: string; include?: string; websiteId?: number },
  ) => {
    const actor = await actorOf(services, request, options.websiteId);
    const usage = options.include === 'usage' ? (await ops.usage(actor, [item])).get(item.id) : undefined;
    reply.header('etag', etagOf(item.updatedAt));
    return { data: mediaJson(item, options.locale, usage) };
  };

  router.route({
    method: 'GET',
    url: '/media',
    summary: 'The media library of a website',
    description:
      'Its items and those of every website, for its contributors and above. `?include=usage` says ' +
      'where each is used.',
    tags: ['media'],
    querystring: listQuery,
    response: {
      200: pagedListOf(mediaSchema),
    },
    handler: async (request, reply) => {
      const { query, page } = pagedQueryOf(listQuery, request);
      const actor = await actorOf(services, request, query.filter?.website);
      const sort = sortOf(query.sort, SORTABLE_MEDIA_FIELDS, { field: 'created_at', direction: 'desc' });
      const result = await ops.list(actor, {
        q: query.q,
        type: query.filter?.type,
        sort: sort.field,
        direction: sort.direction,
        page: page.page,
        perPage: page.perPage,
      });
      const usage = query.include === 'usage' ? await ops.usage(actor, result.items) : undefined;
      const items = result.items.map((item) => mediaJson(item, query.locale, usage?.get(item.id)));
      return {
        data: selectFields(items, query.fields, FIELDS),
        meta: pageMeta(request, reply, page, result.total),
      };
    },
  });

  router.route({
    method: 'POST',
    url: '/media',
    summary: 'Upload files to the media library',
    description:
      `A \`multipart/form-data\` body with the field \`files\` (up to ${MAX_UPLOAD_FILES}, the field ` +
      'repeated). Images only (JPEG, PNG, GIF, WebP, AVIF), checked by their content: another file is a ' +
      '415, one past the size limit (setting `post_thumbnail_max_kb`) a 413. Each image gets a WebP copy ' +
      'and smaller WebP sizes (`variants`). `Idempotency-Key` makes a retry answer the first result.',
    tags: ['media'],
    querystring: websiteQuery,
    body: uploadMediaInput.strict(),
    files: { max: MAX_UPLOAD_FILES },
    response: { 201: listOf(mediaSchema), 413: problemSchema, 415: problemSchema },
    handler: async (request, reply) => {
      const { website } = queryOf(websiteQuery, request);
      const actor = await actorOf(services, request, website);
      const upload = async () => {
        const items = await ops.upload(actor, request.body);
        return {
          status: 201,
          body: JSON.stringify({ data: items.map((item) => mediaJson(item, undefined)) }),
        };
      };
      const key = request.headers['idempotency-key'];
      const answer =
        typeof key === 'string'
          ? await services.idempotency.run(
              {
                caller: `user:${callerOf(request).user.id}`,
                scope: 'api.v2.media.upload',
                key,
                input: { website: actor.websiteId, files: uploadFingerprint(request.body) },
              },
              upload,
            )
          : { ...(await upload()), replayed: false };
      if (answer.replayed) reply.header('idempotent-replayed', 'true');
      const created = JSON.parse(answer.body) as { data: Array<{ id: number }> };
      if (created.data.length === 1) reply.header('location', `/api/v2/media/${created.data[0]!.id}`);
      return reply.code(answer.status).type('application/json; charset=utf-8').send(answer.body);
    },
  });

  router.route({
    method: 'GET',
    url: '/media/:id',
    summary: 'Get an item of the media library',
    description: 'With an ETag: send it back as `If-None-Match` (304) or as `If-Match` on a change.',
    tags: ['media'],
    params: idParams,
    querystring: showQuery,
    response: { 200: one, 404: problemSchema },
    handler: async (request, reply) => {
      const query = queryOf(showQuery, request);
      const item = await ops.show(await actorOf(services, request, query.website), idOf(request));
      const etag = etagOf(item.updatedAt);
      if (notModified(request, etag)) return reply.header('etag', etag).code(304).send();
      return answerOne(request, reply, item, {
        locale: query.locale,
        include: query.include,
        websiteId: query.website,
      });
    },
  });

  router.route({
    method: 'GET',
    url: '/media/:id/usage',
    summary: 'Where an item of the media library is used',
    description:
      'Posts (and links) whose thumbnail or content names it, pages whose content does, and the ' +
      'website if it is its logo, favicon or home cover; uses this website does not show are counted in `elsewhere`.',
    tags: ['media'],
    params: idParams,
    querystring: websiteQuery,
    response: { 200: z.object({ data: mediaUsageSchema }), 404: problemSchema },
    handler: async (request) => {
      const { website } = queryOf(websiteQuery, request);
      const actor = await actorOf(services, request, website);
      const item = await ops.show(actor, idOf(request));
      return { data: usageJson((await ops.usage(actor, [item])).get(item.id)!) };
    },
  });

  router.route({
    method: 'PATCH',
    url: '/media/:id',
    summary: 'Change the alt text and caption of an item',
    description:
      'Each a string, or a map of locale to text (`null` clears it). Contributors and above change ' +
      'their own items, editors and site admins any. `If-Match` (its ETag or `updated_at`): 412 when ' +
      'it changed since.',
    tags: ['media'],
    params: idParams,
    querystring: websiteQuery,
    body: updateMediaInput.strict(),
    response: { 200: one, 404: problemSchema, 412: problemSchema },
    handler: async (request, reply) => {
      const { website } = queryOf(websiteQuery, request);
      const item = await ops.update(await actorOf(services, request, website), idOf(request), request.body, {
        ifVersion: ifMatchVersion(request),
      });
      return answerOne(request, reply, item, { websiteId: website });
    },
  });

  router.route({
    method: 'DELETE',
    url: '/media/:id',
    summary: 'Delete an item of the media library',
    description:
      'While a post, page or website uses it: 409 naming the uses, unless `?force=true`. Its files go ' +
      'with it unless another item names them. Takes `If-Match`.',
    tags: ['media'],
    params: idParams,
    querystring: deleteQuery,
    response: { 204: z.null(), 404: problemSchema, 409: problemSchema, 412: problemSchema },
    handler: noContent(async (request) => {
      const query = queryOf(deleteQuery, request);
      await ops.delete(await actorOf(services, request, query.website), idOf(request), {
        force: query.force === 'true',
        ifVersion: ifMatchVersion(request),
      });
    }),
  });
}
