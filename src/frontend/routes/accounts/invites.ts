// An invitation's link (issue 25 #7): /user/invite/{token} shows to which website and role it
// invites; a visitor with no account for the address chooses a name and a password, one with an
// account signs in as it first, a signed-in visitor with that address accepts with one button. The
// token is in the URL: its pages send no Referer. Accepting leads to the admin panel.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError, ValidationError } from '../../../domain/errors.js';
import type { OpenInvite } from '../../../domain/people/invites.js';
import { validationMessages } from '../../../http/validation-messages.js';
import { urlFor } from '../../context.js';
import type { FrontendState } from '../../context.js';
import { signIn } from '../../session.js';
import type { AccountPages, Body, Errors } from './forms.js';
import { TOKEN_PAGE_REFERRER_POLICY } from './forms.js';

const DEAD = { status: 404, key: 'invite.dead' };

export function inviteRoutes(pages: AccountPages): void {
  const { kit } = pages;
  const { services } = kit;
  const tokenOf = (request: FastifyRequest) => (request.params as { token: string }).token;

  const show = (
    request: FastifyRequest,
    reply: FastifyReply,
    state: FrontendState,
    invite: OpenInvite,
    extra: Body = {},
  ) => {
    const path = `/user/invite/${tokenOf(request)}`;
    const mode = state.user
      ? state.user.email.toLowerCase() === invite.email
        ? 'accept'
        : 'other-account'
      : invite.hasAccount
        ? 'sign-in'
        : 'register';
    return pages.page(request, reply, state, 'user/invite', {
      title: state.t('invite.title', { website: invite.websiteName }),
      invite: {
        email: invite.email,
        role: invite.role.replace('_', ' '),
        /** The role in the page's words. */
        role_name: state.t(`role.${invite.role}`),
        website: invite.websiteName,
      },
      mode,
      action: urlFor(state, path),
      login_url: `${urlFor(state, '/user/login')}?redirect=${encodeURIComponent(path)}`,
      ...extra,
    });
  };

  kit.page('GET', '/user/invite/:token', { name: 'users.invite' }, async (request, reply, state) => {
    reply.header('referrer-policy', TOKEN_PAGE_REFERRER_POLICY);
    const invite = await services.inviteOps.open(tokenOf(request));
    if (!invite) return pages.deadLink(request, reply, state, DEAD);
    return show(request, reply, state, invite);
  });

  kit.page('POST', '/user/invite/:token', { name: 'users.invite.accept' }, async (request, reply, state) => {
    reply.header('referrer-policy', TOKEN_PAGE_REFERRER_POLICY);
    const reason = await pages.refused(request);
    if (reason) return pages.message(request, reply, state, 403, state.t('error.form_refused'), reason);
    const token = tokenOf(request);
    const invite = await services.inviteOps.open(token);
    if (!invite) return pages.deadLink(request, reply, state, DEAD);
    const body = (request.body ?? {}) as Body;
    let user;
    try {
      user = await services.inviteOps.accept(
        token,
        state.user ? { user: state.user } : { raw: { name: body.name, password: body.password } },
      );
    } catch (error) {
      if (error instanceof ForbiddenError) {
        return pages.message(request, reply, state, 403, state.t('invite.another_account'), error.message);
      }
      if (!(error instanceof ValidationError)) throw error;
      const errors: Errors = validationMessages(error);
      reply.code(422);
      return show(request, reply, state, invite, {
        errors,
        form: { name: typeof body.name === 'string' ? body.name : '' },
      });
    }
    if (!user) return pages.deadLink(request, reply, state, DEAD);
    if (!state.user) await signIn(services, request, reply, user);
    return reply.redirect('/admin', 303);
  });
}
