// Tags API (spec 4.2, R-Tg1..R-Tg4), with the envelope deviations of spec 2.1: the list has no
// `message`; store answers `{status, message, data}` only, and its 500 is
// `{"status":500,"message":"Server Error: …"}`.
import { defaultLocale } from '../../domain/locales.js';
import { existingTagsInput, tagTreeInput } from '../../domain/tags/input.js';
import type { Tag, TagNode } from '../../domain/tags/store.js';
import { normalizeLocale } from '../../domain/translations.js';
import type { FaceServices } from '../../services.js';
import { JsonText, success } from './envelope.js';
import type { Json } from './envelope.js';
import { actorOf } from './actor.js';
import { requestInput } from './input.js';
import { tagFieldsJson } from '../tag-json.js';
import type { ApiRouter } from './router.js';
import { validate } from './validation.js';

/** A tag as the API shows it (R-Tg2). */
export function tagJson(tag: Tag): { [key: string]: Json } {
  return tagFieldsJson(tag);
}

export function tagTreeJson(node: TagNode): Json {
  return { ...tagJson(node), children: node.children.map(tagTreeJson) };
}

/** The answer's bytes, encoded once per cached copy. */
const encoded = new WeakMap<object, JsonText>();
function answerBytes(answer: { text: string }): JsonText {
  let bytes = encoded.get(answer);
  if (!bytes) encoded.set(answer, (bytes = new JsonText(200, Buffer.from(answer.text))));
  return bytes;
}

/** The tag store's 500: a numeric status and no `code` (spec section 7). */
const storeServerError = (message: string): Json => ({ status: 500, message });

export function registerTagRoutes(router: ApiRouter, services: FaceServices): void {
  // Trees as answer text (cached by the read, per type and locale).
  const treeView = {
    name: 'api-v1',
    build: (tree: TagNode[]) => ({
      text: JSON.stringify({ code: 200, status: 'success', data: tree.map(tagTreeJson), extra: [] }),
    }),
  };
  router.route(['POST'], '/tags', { switchKey: 'svc_api_tag_index', read: true }, async (request) => {
    const input = validate(tagTreeInput, requestInput(request));
    const locale = input.locale?.trim()
      ? normalizeLocale(input.locale)
      : await defaultLocale(services.settings);
    return answerBytes(await services.tagReads.tree(input.type, locale, treeView));
  });

  router.route(['POST'], '/tags/exist', { switchKey: 'svc_api_tag_exist', read: true }, async (request) => {
    const input = validate(existingTagsInput, requestInput(request));
    return success('Successfully fetched data', { ids: await services.tagOps.existingIds(input.tagIds) });
  });

  router.route(
    ['POST'],
    '/tags/store',
    { switchKey: 'svc_api_tag_store', legacySwitch: 'enable_api_tag_store', userRequired: true },
    async (request) => {
      const { outcome, tag } = await services.tagOps.store(
        await actorOf(services, request),
        requestInput(request),
      );
      const message =
        outcome === 'created'
          ? `tag #${tag.id} created`
          : outcome === 'updated'
            ? 'Existing tag updated'
            : 'Skipped. Duplicated tag found';
      return { status: 'success', message, data: tagJson(tag) };
    },
    { serverErrorBody: storeServerError },
  );
}
