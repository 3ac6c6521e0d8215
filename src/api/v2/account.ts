// The caller: who they are and what they hold (GET /me), and the CSRF token a browser signed in with
// the session cookie sends back as `X-CSRF-Token` on writes (GET /session).
import { z } from 'zod';
import { csrfToken } from '../../http/csrf.js';
import type { FaceServices } from '../../services.js';
import { localeSettings } from '../../domain/locales.js';
import { INTERFACE_LANGUAGES, languageInput } from '../../domain/languages.js';
import { actorOf, callerOf } from './auth.js';
import type { V2Router } from './router.js';
import { meSchema } from './schemas.js';

export function registerAccountRoutes(router: V2Router, services: FaceServices): void {
  router.route({
    method: 'GET',
    url: '/me',
    summary: 'The caller',
    description: 'The user behind the key, token or session, their roles per website, and the key used.',
    tags: ['account'],
    response: { 200: meSchema },
    handler: async (request) => {
      const { user, key } = callerOf(request);
      const actor = await actorOf(services, request);
      const [roles, locales, website] = await Promise.all([
        services.memberOps.ownRoles(user),
        localeSettings(services.settings),
        actor.websiteId === null ? null : services.websiteLookup.find(actor.websiteId),
      ]);
      const can = website && (await services.policy.abilitiesOn(actor, website.id));
      // The websites of the roles, named (the admin panel's site switcher); gone ones are left out.
      const roleSites = (
        await Promise.all(
          roles.map(async (role) => ({ role, site: await services.websiteLookup.find(role.websiteId) })),
        )
      ).flatMap(({ role, site }) => (site ? [{ role, site }] : []));
      return {
        data: {
          id: user.id,
          name: user.name,
          email: user.email,
          username: user.username,
          is_admin: user.isAdmin,
          language: user.locale,
          roles: roleSites.map(({ role, site }) => ({
            website_id: role.websiteId,
            role: role.role,
            domain: site.domain,
            name: site.fields.site_name || site.domain,
          })),
          api_key: key && {
            id: key.id,
            name: key.name,
            read_only: key.readOnly,
            website_ids: key.websiteIds,
          },
          website: website &&
            can && {
              id: website.id,
              domain: website.domain,
              name: website.fields.site_name || website.domain,
              can: {
                create_posts: can.createPosts,
                publish_posts: can.publishPosts,
                edit_others_posts: can.editOthersPosts,
                review_posts: can.reviewPosts,
                moderate_comments: can.moderateComments,
                manage_pages: can.managePages,
                upload_media: can.uploadMedia,
                manage_menus: can.manageMenus,
                manage_website: can.manageWebsite,
                manage_members: can.manageMembers,
                read_audit: can.readAudit,
                manage_tags: can.manageTags,
                create_tags: can.createTags,
                read_stats: can.readStats,
              },
            },
          locales: { default: locales.defaultLocale, supported: locales.supported },
        },
      };
    },
  });

  router.route({
    method: 'PUT',
    url: '/me/language',
    summary: 'Choose the caller’s language',
    description:
      'The language of the admin panel and of every mail to the caller: `en`, `zh_TW`, `zh_CN` or `ja`; ' +
      '`null` lets the panel follow the browser again (mails then use the site’s language).',
    tags: ['account'],
    body: languageInput,
    response: {
      200: z
        .object({ data: z.object({ language: z.enum(INTERFACE_LANGUAGES).nullable() }) })
        .meta({ id: 'Language' }),
    },
    handler: async (request) => {
      const { user } = callerOf(request);
      const actor = await actorOf(services, request);
      const language = await services.accounts.chooseLanguage(user.id, request.body, actor.origin);
      return { data: { language } };
    },
  });

  router.route({
    method: 'GET',
    url: '/session',
    summary: 'The CSRF token of a signed-in browser',
    description:
      'For calls made with the session cookie: send the token as `X-CSRF-Token` on every write. ' +
      'Calls with `Authorization: Bearer` need none.',
    tags: ['account'],
    response: { 200: z.object({ data: z.object({ csrf_token: z.string() }) }).meta({ id: 'Session' }) },
    handler: async (request, reply) => ({ data: { csrf_token: await csrfToken(services, request, reply) } }),
  });
}
