// The signed-in visitor's own profile (name, public username) and settings (email, password): each a
// form page and its update path. A GET of the update path goes back to the form; a POST is saved and
// answered with a redirect to the form with `?saved=1`, or the form again with its errors.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { profileInput, settingsInput } from '../../../domain/people/account-input.js';
import { siteActor, urlFor } from '../../context.js';
import type { FrontendState } from '../../context.js';
import { redirectToLogin, sessionIdOf } from '../../session.js';
import type { AccountPages, Body } from './forms.js';

export function profileRoutes(pages: AccountPages): void {
  const { kit } = pages;
  const { services } = kit;

  /** A form of the signed-in visitor: its page (`name`) and its update path (`name.update`). */
  const ownForm = <S extends z.ZodType>(spec: {
    path: string;
    name: string;
    template: string;
    /** The page's title: the theme's key. */
    title: string;
    schema: S;
    /** Fields shown again after an error. */
    fields: string[];
    /** The page's own data (values, notice), from the signed-in visitor. */
    data: (request: FastifyRequest, state: FrontendState) => Body | Promise<Body>;
    /** Saves; may name a notice for the form page (`?saved=<notice>`), else `1`. */
    save: (request: FastifyRequest, state: FrontendState, input: z.output<S>) => Promise<string | void>;
  }) => {
    const form = async (
      request: FastifyRequest,
      reply: FastifyReply,
      state: FrontendState,
      extra: Body = {},
    ) =>
      pages.page(request, reply, state, spec.template, {
        title: state.t(spec.title),
        action: urlFor(state, `${spec.path}/update`),
        ...(await spec.data(request, state)),
        ...extra,
      });
    kit.page('GET', spec.path, { name: spec.name }, async (request, reply, state) => {
      if (redirectToLogin(request, reply, state)) return reply;
      return form(request, reply, state);
    });
    kit.page(
      ['GET', 'POST'],
      `${spec.path}/update`,
      { name: `${spec.name}.update` },
      async (request, reply, state) => {
        if (redirectToLogin(request, reply, state)) return reply;
        if (request.method !== 'POST') return reply.redirect(urlFor(state, spec.path));
        return pages.submit(request, reply, state, {
          schema: spec.schema,
          fields: spec.fields,
          form,
          action: async (input) => {
            const notice = (await spec.save(request, state, input)) ?? '1';
            return reply.redirect(`${urlFor(state, spec.path)}?saved=${notice}`, 303);
          },
        });
      },
    );
  };

  ownForm({
    path: '/user/profile',
    name: 'users.profile',
    template: 'user/profile',
    title: 'profile.title',
    schema: profileInput,
    fields: ['name', 'username'],
    data: async (request, state) => {
      const user = state.user!;
      const query = request.query as Body;
      const own = await services.authoring.ownPosts(user, state.website.id);
      return {
        own_posts: own.map((post) => ({
          title: post.title,
          status: post.status,
          updated_at: post.updatedAt,
          edit_url: urlFor(state, `/post/edit/${post.id}`),
          url: post.status === 'published' ? urlFor(state, `/post/${encodeURIComponent(post.slug)}`) : null,
        })),
        account: { name: user.name, email: user.email, username: user.username ?? '' },
        form: { name: user.name, username: user.username ?? '' },
        notice:
          query.welcome === '1'
            ? state.t('profile.welcome')
            : query.saved === '1'
              ? state.t('profile.saved')
              : query.deleted === '1'
                ? state.t('profile.post_deleted')
                : null,
        write_url: urlFor(state, '/post/create'),
        // Editors of this website find the posts waiting for their review from here.
        review_url: (await services.authoring.reviews(user, state.website.id))
          ? urlFor(state, '/post/review')
          : null,
      };
    },
    save: (request, state, input) =>
      services.accounts.updateProfile(state.user!.id, input, siteActor(request, state).origin),
  });

  ownForm({
    path: '/user/settings',
    name: 'users.settings',
    template: 'user/settings',
    title: 'settings.title',
    schema: settingsInput,
    fields: ['email'],
    data: (request, state) => ({
      form: { email: state.user!.email },
      notice: Object.hasOwn(SETTINGS_NOTICES, String((request.query as Body).saved))
        ? state.t(SETTINGS_NOTICES[String((request.query as Body).saved)]!)
        : null,
      mail_in_log: String((request.query as Body).saved) === 'email' && pages.mailGoesToLog(),
    }),
    save: async (request, state, input) => {
      const { emailPending } = await services.accounts.updateSettings(
        state.user!,
        { email: input.email, newPassword: input.password, currentPassword: input.current_password },
        (await sessionIdOf(services, request)) as string,
        {
          link: (token) => pages.mailLink(state, `/user/settings/email/${token}`),
          siteName: pages.siteName(state),
          siteDomain: state.website.domain,
          locale: state.locale,
        },
        siteActor(request, state).origin,
      );
      return emailPending ? 'email' : '1';
    },
  });

  // The link mailed to a new address: a page with a button, so that opening it (a mail scanner)
  // changes nothing; the button moves the account. Whoever reads the new address may use it.
  const deadEmailLink = { status: 400, key: 'email_change.dead' };
  pages.tokenLink({
    path: '/user/settings/email',
    name: 'users.settings.email',
    template: 'user/confirm',
    words: {
      title: 'email_change.title',
      message: 'email_change.text',
      button: 'email_change.button',
    },
    valid: (token) => services.accounts.emailChangeTokenValid(token),
    dead: deadEmailLink,
    schema: z.object({}),
    action: async (token, _input, request, reply, state) =>
      (await services.accounts.confirmEmailChange(token, siteActor(request, state).origin))
        ? pages.message(
            request,
            reply,
            state,
            200,
            state.t('email_change.done.title'),
            state.t('email_change.done.text'),
          )
        : pages.deadLink(request, reply, state, deadEmailLink),
  });
}

/** The settings page's notices after a save (`?saved=…`): the theme's keys. */
const SETTINGS_NOTICES: Record<string, string> = {
  '1': 'settings.saved',
  email: 'settings.saved_email',
};
